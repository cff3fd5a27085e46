// A store's address and key as the client takes them: the one normalisation of the base URL, and a key
// a header can carry.
import { problem } from '#shared/problem';
import { plainHttpAllowed, PLAIN_HTTP_REFUSED } from '#shared/domain/base-url';

/** The API's path prefix: every endpoint's path starts with it. */
export const PREFIX = '/api/public/v1';

/**
 * The ONE normalisation of a store's base URL (the stores service saves what this returns, the client
 * calls what it returns): no trailing slash and no trailing `/api/public/v1` (the API description prints
 * every path with it, so users paste it), only http(s), and never with credentials in it.
 */
export function normaliseBaseUrl(raw: string): { href: string; host: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw problem(
      'validation',
      400,
      'The API base URL is not valid',
      "Enter the store's address, such as https://shop.example.com.",
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw problem(
      'validation',
      400,
      'The API base URL is not valid',
      'The address must start with https:// or http://.',
    );
  }
  // The same rule the contract applies to a new store, here too for stores saved before it.
  if (url.protocol === 'http:' && !plainHttpAllowed(url.hostname)) {
    throw problem(
      'validation',
      400,
      'Plain http:// is not allowed for this address',
      PLAIN_HTTP_REFUSED,
    );
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw problem(
      'validation',
      400,
      'The API base URL is not valid',
      'The address may not carry a user name, password, query or fragment: the key goes in its own field.',
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  const bare = path.toLowerCase().endsWith(PREFIX) ? path.slice(0, -PREFIX.length) : path;
  const href = `${url.origin}${bare}`.replace(/\/+$/, '');
  return { href, host: url.host };
}

/** A key that a header cannot carry would make fetch quote it in its error: refuse it first, without echoing it. */
export function checkApiKey(key: string): string {
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw problem(
      'validation',
      400,
      'The API key is not valid',
      'An API key is one word of printable characters.',
    );
  }
  return key;
}
