// The window's fences: CSP on every response, no permissions, no navigation, no new windows, no <webview>.
import type { Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../common/csp';
import { isAppUrl, type RendererSource } from './renderer-source';
import { safeExternalUrl } from './external';

/**
 * Sets the CSP header on every response the session receives. The renderer loads only its own
 * files, so "every response" is "the app's responses"; any other page would get the same fence.
 */
export function applyContentSecurityPolicy(session: Session): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
      // Drop any policy the response brought, so ours is the one in force.
      if (name.toLowerCase() !== 'content-security-policy') headers[name] = value;
    }
    headers['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
    callback({ responseHeaders: headers });
  });
}

/** Camera, notifications, clipboard reads, …: the app needs none, so every request and check says no. */
export function denyAllPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/**
 * Applied to every web contents the app creates: navigation away from the app's page is cancelled,
 * window.open / target=_blank never opens a window (an http(s) link goes to the user's browser
 * instead) and <webview> tags are refused.
 */
export function hardenWebContents(
  contents: WebContents,
  source: RendererSource,
  openExternal: (url: string) => Promise<void>,
): void {
  contents.on('will-navigate', (event) => {
    // Reloading our own page (the dev server's full reload) is the only navigation allowed.
    if (!isAppUrl(source, event.url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    const safe = safeExternalUrl(url);
    if (safe) {
      openExternal(safe).catch((error: unknown) =>
        console.error('[splitbook] could not open a link:', error),
      );
    }
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
