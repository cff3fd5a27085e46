// The per-store limiter: concurrency cap, store-wide pause on 429, pacing, and learning the server's rate.
import { describe, expect, it } from 'vitest';
import { createRequestLimiter, type Permit } from '#core/api/limiter';
import { VirtualClock } from './support/virtual-clock';

describe('createRequestLimiter', () => {
  it('lets at most `concurrency` requests through at once', async () => {
    const limiter = createRequestLimiter({ concurrency: 2 });
    const granted: Permit[] = [];
    for (let i = 0; i < 5; i += 1) void limiter.acquire().then((p) => granted.push(p));
    await tick();
    expect(granted).toHaveLength(2);
    granted[0]?.answered();
    await tick();
    expect(granted).toHaveLength(3);
    granted[1]?.failed();
    granted[1]?.failed(); // a second report of the same permit frees nothing more
    await tick();
    expect(granted).toHaveLength(4);
    expect(limiter.stats().requests).toBe(4);
  });

  it('pauses every request of the store when one is answered 429', async () => {
    const clock = new VirtualClock();
    const limiter = createRequestLimiter({ concurrency: 4, now: clock.now, sleep: clock.sleep });
    const first = await limiter.acquire();
    first.throttled(2_000);
    const grantedAt: number[] = [];
    for (let i = 0; i < 3; i += 1)
      void limiter.acquire().then((p) => (grantedAt.push(clock.now()), p.answered()));
    await clock.runUntil(1_999);
    expect(grantedAt).toEqual([]);
    expect(limiter.pauseRemainingMs()).toBe(1);
    await clock.runUntil(2_000);
    expect(grantedAt).toEqual([2_000, 2_000, 2_000]);
    expect(limiter.stats()).toMatchObject({ throttled: 1, pausedMs: 2_000 });
  });

  it('paces at a known rate', async () => {
    const clock = new VirtualClock();
    const limiter = createRequestLimiter({
      concurrency: 10,
      ratePerSecond: 10,
      now: clock.now,
      sleep: clock.sleep,
    });
    const grantedAt: number[] = [];
    for (let i = 0; i < 5; i += 1)
      void limiter.acquire().then((p) => (grantedAt.push(clock.now()), p.answered()));
    await clock.runUntil(10_000);
    expect(grantedAt).toEqual([0, 100, 200, 300, 400]);
  });

  it('starts a run at a pace learnt earlier and probes above it, since the limit may have risen', async () => {
    const clock = new VirtualClock();
    const limiter = createRequestLimiter({
      concurrency: 10,
      startRatePerSecond: 10,
      now: clock.now,
      sleep: clock.sleep,
    });
    const grantedAt: number[] = [];
    for (let i = 0; i < 60; i += 1)
      void limiter.acquire().then((p) => (grantedAt.push(clock.now()), p.answered()));
    await clock.runUntil(600);
    // Paced from the first request, not a cold start at full concurrency.
    expect(grantedAt.slice(0, 5)).toEqual([0, 100, 200, 300, 400]);
    await clock.runUntil(60_000);
    // A known rate is a ceiling; a learnt one is not: with requests waiting it grows past 10.
    expect(limiter.stats().ratePerSecond).toBeGreaterThan(10);
    // What a next run starts from is the pace learnt, not the probe above it.
    expect(limiter.stats().settledRatePerSecond).toBe(10);
  });

  it('gives up a waiting slot when its caller aborts', async () => {
    const limiter = createRequestLimiter({ concurrency: 1 });
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    const after = limiter.acquire();
    controller.abort(new Error('user cancelled'));
    await expect(waiting).rejects.toThrow('user cancelled');
    held.answered();
    await expect(after).resolves.toBeDefined();
    expect(limiter.stats().requests).toBe(2);
  });

  it('refuses an already aborted signal at once', async () => {
    const limiter = createRequestLimiter();
    await expect(limiter.acquire(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it.each([
    { capacity: 20, refill: 20 },
    { capacity: 5, refill: 10 },
    { capacity: 50, refill: 50 },
    { capacity: 2, refill: 1 },
  ])(
    'learns a token bucket of capacity $capacity, refill $refill/s: the limit is the only ceiling',
    async ({ capacity, refill }) => {
      const clock = new VirtualClock();
      const limiter = createRequestLimiter({ now: clock.now, sleep: clock.sleep });
      const bucket = tokenBucket(capacity, refill);
      const durationMs = 120_000;
      let ok = 0;

      // Four workers, as many as the limiter lets through, each sending back to back with 10 ms latency.
      const worker = async () => {
        while (clock.now() < durationMs) {
          const permit = await limiter.acquire();
          await clock.sleep(10);
          const answer = bucket.take(clock.now());
          if (answer.allowed) {
            if (clock.now() <= durationMs) ok += 1;
            permit.answered();
          } else permit.throttled(answer.retryAfterSeconds * 1000);
        }
      };
      const workers = Promise.all([worker(), worker(), worker(), worker()]);
      await clock.runUntil(durationMs + 60_000);
      await workers;

      const seconds = durationMs / 1000;
      const achieved = ok / seconds;
      expect(achieved).toBeGreaterThanOrEqual(0.9 * refill);
      // The server cannot let more through than its bucket; the few 429s show the pacing works.
      expect(ok).toBeLessThanOrEqual(capacity + seconds * refill);
      // Pacing, not 429s, holds it back: a few to learn the limit, then about one per probe.
      expect(limiter.stats().throttled).toBeLessThan(durationMs / 6_000);
    },
  );
});

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The server's rate limit as the simulator models it: Retry-After in whole seconds, at least 1. */
function tokenBucket(capacity: number, refillPerSecond: number) {
  let tokens = capacity;
  let at = 0;
  return {
    take(now: number): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
      tokens = Math.min(capacity, tokens + ((now - at) / 1000) * refillPerSecond);
      at = now;
      if (tokens >= 1) {
        tokens -= 1;
        return { allowed: true };
      }
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / refillPerSecond)),
      };
    },
  };
}
