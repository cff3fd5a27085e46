// The renderer's Content-Security-Policy, one text for both hosts that serve it (Electron and the browser host).

/**
 * Only the app's own scripts, styles (Svelte sets inline style attributes), images, fonts and
 * same-origin requests (the browser host's API; in Electron the renderer makes none). No frames,
 * no plugins, no <base> or form targets elsewhere.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
