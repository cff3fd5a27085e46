// A `fetch` that calls the handler directly (no port) and fails the way the real one does:
// a reset connection rejects with TypeError('fetch failed'), an aborted signal rejects with its reason,
// and a truncated body errors while it is read.
import { SimulatedConnectionReset } from './faults';
import type { Handler } from './handler';

/** Any absolute URL works; this one says where requests go. */
export const IN_PROCESS_BASE_URL = 'http://simulator.invalid';

export function createInProcessFetch(handler: Handler): typeof fetch {
  return async function inProcessFetch(
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> {
    const request = new Request(input, init);
    const { signal } = request;
    signal.throwIfAborted();
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([handler(request), aborted]);
    } catch (error) {
      if (error instanceof SimulatedConnectionReset)
        throw new TypeError('fetch failed', { cause: error });
      throw error;
    } finally {
      // One signal may serve many requests (a whole sync): do not leave a listener per request on it.
      signal.removeEventListener('abort', onAbort);
    }
  };
}
