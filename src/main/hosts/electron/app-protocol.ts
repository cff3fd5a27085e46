// The app:// scheme: the built renderer is served from it (not file://), by a handler that answers
// only with files inside the renderer's folder and sets the CSP header on each.
import { realpathSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Protocol } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../common/csp';

export const APP_SCHEME = 'app';
export const APP_HOST = 'splitbook';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The page the window loads. */
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

/**
 * Declares app:// a standard, secure scheme (a real origin, relative URLs, fetch), before the app is
 * ready, as Electron requires. It gets no other privilege (no service workers, no CSP bypass).
 */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/**
 * The file a request for `url` may be answered with, or null: only app://splitbook/…, only GET-able
 * paths that resolve (symbolic links followed) to a regular file inside `rootDir`.
 */
export function resolveAppFile(rootDir: string, url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return null;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  if (path === '/' || path === '') path = '/index.html';
  let root: string;
  let file: string;
  try {
    root = realpathSync(rootDir);
    file = realpathSync(resolve(root, `.${path}`));
  } catch {
    return null; // missing file, or a broken link
  }
  const inside = relative(root, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null;
  try {
    if (!statSync(file).isFile()) return null;
  } catch {
    return null;
  }
  return join(root, inside);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
};

/** The handler of app:// requests: the file's bytes with its type and the CSP, or a 404. */
export function appProtocolHandler(
  rootDir: string,
  readFile: (fileUrl: string) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const file = request.method === 'GET' ? resolveAppFile(rootDir, request.url) : null;
    if (!file) return new Response('Not found', { status: 404 });
    const body = await readFile(pathToFileURL(file).href);
    const headers = new Headers({
      'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
    });
    return new Response(body.body, { status: 200, headers });
  };
}

/** Serves the built renderer folder on app://; called once the app is ready. */
export function serveRenderer(
  protocol: Pick<Protocol, 'handle'>,
  rootDir: string,
  readFile: (fileUrl: string) => Promise<Response>,
): void {
  protocol.handle(APP_SCHEME, appProtocolHandler(rootDir, readFile));
}
