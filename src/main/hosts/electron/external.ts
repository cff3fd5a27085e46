// Links that leave the app: only well-formed http(s) addresses, opened in the user's browser.
import { shell } from 'electron';
import { problem } from '#shared/problem';

/** The normalized address when `url` is a plain http(s) link without credentials; otherwise null. */
export function safeExternalUrl(url: string): string | null {
  if (url.length > 2000) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.username || parsed.password || !parsed.hostname) return null;
  return parsed.href;
}

/** The core's `openExternal` dependency in Electron: re-validates, then hands the link to the OS. */
export async function openExternalSafely(url: string): Promise<void> {
  const safe = safeExternalUrl(url);
  if (!safe)
    throw problem('validation', 400, 'Link refused', 'Only plain http(s) links can be opened.');
  await shell.openExternal(safe);
}
