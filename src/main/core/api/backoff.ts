// Waiting between attempts: capped exponential backoff with full jitter, and the server's Retry-After.

/** First step of the backoff; each retry doubles it up to the cap. */
export const BASE_BACKOFF_MS = 250;

/**
 * Full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"): a uniform draw
 * below the capped exponential spreads retries of many clients instead of syncing them.
 * `retry` counts from 0 for the first retry.
 */
export function backoffDelay(
  retry: number,
  capMs: number,
  random: () => number,
  baseMs = BASE_BACKOFF_MS,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, retry));
  return Math.floor(clamp01(random()) * ceiling);
}

/**
 * Retry-After as delay-seconds or as an HTTP date (RFC 9110 §10.2.3), in milliseconds from `now`.
 * Null when absent or unreadable, so the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only a value that opens with a day name counts as a date (IMF-fixdate, RFC 850, asctime):
  // Date.parse accepts too much ("1.5" is a date to it).
  if (!/^[A-Za-z]{3,9},? /.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** A sleep that ends early, rejecting with the signal's reason, when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(Math.max(x, 0), 1) : 0;
}
