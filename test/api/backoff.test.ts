// Waiting between attempts: full-jitter backoff bounds and both forms of Retry-After.
import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, sleep } from '#core/api/backoff';

describe('backoffDelay', () => {
  it('draws uniformly below base * 2^retry (full jitter)', () => {
    expect(backoffDelay(0, 30_000, () => 0.999, 100)).toBe(99);
    expect(backoffDelay(3, 30_000, () => 0.5, 100)).toBe(400);
    expect(backoffDelay(3, 30_000, () => 0, 100)).toBe(0);
  });

  it('never exceeds the cap, however many retries', () => {
    expect(backoffDelay(40, 2_000, () => 0.999_999, 100)).toBeLessThan(2_000);
    expect(backoffDelay(1_000, 30_000, () => 1, 250)).toBe(30_000);
  });

  it('treats a random source outside [0, 1] as its nearest bound', () => {
    expect(backoffDelay(0, 1_000, () => 7, 100)).toBe(100);
    expect(backoffDelay(0, 1_000, () => Number.NaN, 100)).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Sunday, 22-Nov-26 10:00:05 GMT', now)).toBe(5_000); // RFC 850, obsolete but allowed
  });

  it('reads a date in the past as "now"', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores an absent or unreadable value so the caller backs off on its own', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('-2', now)).toBeNull();
  });
});

describe('sleep', () => {
  it('ends early with the reason when its signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const slept = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
