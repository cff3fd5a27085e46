// Per-key token bucket: `capacity` requests at once, refilled at `refillPerSecond`; null means no limit.
import { z } from 'zod';

export const RateLimit = z.object({
  capacity: z.number().positive(),
  refillPerSecond: z.number().positive(),
});
export type RateLimit = z.infer<typeof RateLimit>;

export type Admission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function createRateLimiter(limit: RateLimit | null) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes one token of `key`'s bucket at time `now` (ms), or says how long to wait for one. */
    take(key: string, now: number): Admission {
      if (limit === null) return { allowed: true };
      const bucket = buckets.get(key) ?? { tokens: limit.capacity, at: now };
      const elapsedSeconds = Math.max(0, now - bucket.at) / 1000;
      bucket.tokens = Math.min(
        limit.capacity,
        bucket.tokens + elapsedSeconds * limit.refillPerSecond,
      );
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      // Retry-After is whole seconds, at least 1: round the wait for the next token up.
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / limit.refillPerSecond)),
      };
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
