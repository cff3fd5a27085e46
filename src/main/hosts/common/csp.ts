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

/**
 * The same policy as a <meta> tag can carry it (src/renderer/index.html): browsers ignore
 * frame-ancestors in a meta policy, so it lives in the header only. A test keeps the two equal.
 */
export const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.split('; ')
  .filter((directive) => !directive.startsWith('frame-ancestors'))
  .join('; ');
