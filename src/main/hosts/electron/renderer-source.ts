// Where the renderer page comes from (the built file or the dev server) and whether a URL is that page.
import { APP_INDEX_URL } from './app-protocol';

export type RendererSource =
  | {
      kind: 'file';
      /** Absolute path of out/renderer/index.html; its folder is served on app:// (see app-protocol.ts). */
      indexFile: string;
    }
  | { kind: 'dev'; /** ELECTRON_RENDERER_URL, set by `electron-vite dev`. */ url: string };

/** The dev server when electron-vite runs one (and the app is not packaged), else the built file. */
export function rendererSource(
  devUrl: string | undefined,
  isPackaged: boolean,
  indexFile: string,
): RendererSource {
  return devUrl && !isPackaged ? { kind: 'dev', url: devUrl } : { kind: 'file', indexFile };
}

/**
 * True when `url` is the app's own page: for the built renderer exactly app://splitbook/index.html
 * (served from the renderer folder only, never file://, whose pages share the opaque origin "null");
 * for dev the dev server's origin.
 */
export function isAppUrl(source: RendererSource, url: string): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  if (source.kind === 'dev') {
    const dev = parseUrl(source.url);
    return dev !== null && parsed.origin === dev.origin;
  }
  const ours = new URL(APP_INDEX_URL);
  return (
    parsed.protocol === ours.protocol &&
    parsed.host === ours.host &&
    parsed.pathname === ours.pathname
  );
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
