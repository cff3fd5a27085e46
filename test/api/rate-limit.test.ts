// A 429 storm: many parallel requests of one store under a tight server limit, ridden out without a failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestLimiter } from '#core/api/index';
import { STORE, serveSim, type ServedSim } from './support/simulator';

let served: ServedSim;
beforeAll(async () => {
  served = await serveSim();
});
afterAll(() => served.close());

describe('under a tight rate limit', () => {
  it('100 concurrent GETs through one limiter all succeed, without ever exceeding the limit', async () => {
    const capacity = 10;
    const refillPerSecond = 20;
    served.sim.setRate({ capacity, refillPerSecond });
    served.sim.resetStats();
    const limiter = createRequestLimiter();
    // Two clients of the same store share its limiter, as the sync and an edit would.
    const clients = [served.client({ limiter }), served.client({ limiter })];
    const ids = served.sim.snapshot(STORE).tests.map((t) => t.id);

    const started = Date.now();
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => clients[i % 2]?.getTest(ids[i % ids.length] ?? '')),
    );
    const seconds = (Date.now() - started) / 1000;

    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const stats = served.sim.stats();
    expect(stats.byStatus['200']).toBe(100);
    // No second of the run saw more requests, 429s included, than the bucket can let through in a second.
    expect(stats.maxRequestsPerSecond).toBeLessThanOrEqual(capacity + refillPerSecond);
    // The store paused on 429s instead of each request running into them: few were refused.
    expect(stats.rateLimited).toBeLessThan(20);
    expect(limiter.stats()).toMatchObject({
      requests: 100 + stats.rateLimited,
      throttled: stats.rateLimited,
    });
    // It learnt the limit as it went: half of it even over so short a run, with its 1-second pauses.
    expect(100 / seconds).toBeGreaterThan(0.5 * refillPerSecond);
  });
});
