// The one rule on where a store's API key may travel over plain http://: only where no network carries it.

/** The message shown when a plain-HTTP address is refused. */
export const PLAIN_HTTP_REFUSED =
  'Plain http:// would send the API key unencrypted across the network. Use https://; http:// is only accepted for this computer (localhost, 127.0.0.1, ::1).';

/**
 * True when http:// may be used with this host: loopback (localhost and *.localhost, 127.0.0.0/8,
 * ::1), or a reserved `.invalid` name (RFC 2606), which never resolves and so only reaches an
 * in-process server such as the demo store's simulator.
 */
export function plainHttpAllowed(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (/^127(\.\d{1,3}){3}$/.test(host)) return true;
  return host === 'invalid' || host.endsWith('.invalid');
}

/** Why an address may not carry a key, or null when it may (https, or http to a loopback host). */
export function insecureAddressProblem(address: string): string | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null; // Not an address at all: the URL check says so in its own words.
  }
  if (url.protocol === 'http:' && !plainHttpAllowed(url.hostname)) return PLAIN_HTTP_REFUSED;
  return null;
}
