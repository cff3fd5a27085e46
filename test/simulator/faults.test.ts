// Rate limiting and fault injection, over real HTTP and in-process: each fault fails the way a real network does.
import { afterEach, describe, expect, it } from 'vitest';
import { Test } from '#shared/api/index';
import { API_PREFIX, createSimulator } from '#simulator/index';
import { bearer, expectJson, expectProblem, keyOf, NOW, serve, type Served } from './support';

let served: Served | null = null;
afterEach(async () => {
  await served?.close();
  served = null;
});

async function start(
  options: Parameters<typeof serve>[0] = {},
): Promise<Served & { get(path?: string): Promise<Response> }> {
  served = await serve({
    stores: [
      { name: 'Shop', tests: 30 },
      { name: 'Other', tests: 5 },
    ],
    ...options,
  });
  const key = keyOf(served.sim, 'Shop');
  const api = served.api;
  return { ...served, get: (path = '/tests') => api(path, { headers: bearer(key) }) };
}

describe('rate limit', () => {
  it('answers 429 problem+json with Retry-After once a key’s bucket is empty, and refills over time', async () => {
    let clock = NOW;
    const { sim, get, api } = await start({
      now: () => clock,
      rate: { capacity: 3, refillPerSecond: 0.5 },
    });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    const limited = await get();
    expect(limited.headers.get('retry-after')).toBe('2');
    await expectProblem(limited, 429);
    // Another key has its own bucket.
    expect((await api('/tests', { headers: bearer(keyOf(sim, 'Other')) })).status).toBe(200);
    clock += 2000;
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
    expect(sim.stats().rateLimited).toBe(2);
  });

  it('can be changed or lifted at run time', async () => {
    const { sim, get } = await start({ rate: { capacity: 1, refillPerSecond: 1 } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
    sim.setRate(null);
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);
  });
});

describe('faults over HTTP', () => {
  it('fail exactly the next N requests with failNext', async () => {
    const { sim, get } = await start();
    sim.failNext('error', 2);
    await expectProblem(await get(), 503);
    await expectProblem(await get(), 503);
    expect((await get()).status).toBe(200);
    expect(sim.stats().faults.error).toBe(2);
  });

  it('reset the connection: fetch rejects with a TypeError and no response', async () => {
    const { sim, get } = await start();
    sim.failNext('reset');
    await expect(get()).rejects.toThrow(TypeError);
    expect((await get()).status).toBe(200);
    expect(sim.stats().byStatus['0']).toBe(1);
  });

  it('truncate a body mid-JSON: the head arrives, reading the body fails', async () => {
    const { sim, get } = await start();
    sim.failNext('truncate');
    const response = await get();
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(100);
    await expect(response.text()).rejects.toThrow(TypeError);
  });

  it('send malformed JSON with a 200', async () => {
    const { sim, get } = await start();
    sim.failNext('malformed');
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    await expect(response.json()).rejects.toThrow(SyntaxError);
  });

  it('add latency, fixed or in a range', async () => {
    const { sim, get } = await start({ faults: { latencyMs: 60 } });
    let started = performance.now();
    await get();
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    sim.setFaults({ latencyMs: [20, 40] });
    started = performance.now();
    await get();
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('break chosen records so they fail the Test schema, in listings and by id', async () => {
    const { sim, get } = await start({ faults: { brokenTests: { count: 2 } } });
    const broken = sim.brokenTestIds('Shop');
    expect(broken).toHaveLength(2);
    const body = (await expectJson(await get('/tests?perPage=100'))) as { data: { id: string }[] };
    const invalid = body.data
      .filter((record) => !Test.safeParse(record).success)
      .map((record) => record.id);
    expect(invalid.sort()).toEqual([...broken].sort());
    expect(body.data.find((record) => record.id === broken[0])).toMatchObject({ title: 42 });
    sim.setFaults({ brokenTests: { ids: [broken[1] ?? ''], kind: 'missing-key' } });
    const one = (await expectJson(await get(`/tests/${broken[1]}`))) as Record<string, unknown>;
    expect('status' in one).toBe(false);
    expect(sim.brokenTestIds('Shop')).toEqual([broken[1]]);
    sim.setFaults({ brokenTests: null });
    expect(Test.safeParse(await expectJson(await get(`/tests/${broken[1]}`))).success).toBe(true);
  });
});

describe('random faults', () => {
  async function statuses(seed: number): Promise<number[]> {
    const sim = createSimulator({
      seed,
      now: () => NOW,
      stores: [{ name: 'Shop', tests: 5 }],
      faults: { errorRate: 0.3, malformedRate: 0.1 },
    });
    const key = keyOf(sim, 'Shop');
    const out: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await sim.fetch(`${sim.baseUrl}${API_PREFIX}/tests`, {
        headers: bearer(key),
      });
      const valid = await response.json().then(
        () => true,
        () => false,
      );
      out.push(valid ? response.status : -1);
    }
    return out;
  }

  it('hit the same requests for the same seed, at about the configured rates', async () => {
    const first = await statuses(5);
    expect(await statuses(5)).toEqual(first);
    expect(await statuses(6)).not.toEqual(first);
    const errors = first.filter((status) => status === 503).length;
    expect(errors).toBeGreaterThan(4);
    expect(errors).toBeLessThan(22);
    expect(first).toContain(-1);
  });

  it('refuse invalid settings', () => {
    const sim = createSimulator({ stores: [{ name: 'Shop', tests: 1 }] });
    expect(() => sim.setFaults({ errorRate: 2 })).toThrow(RangeError);
    expect(() => sim.setFaults({ errorRate: 0.6, resetRate: 0.6 })).toThrow(RangeError);
  });
});

describe('faults in process', () => {
  it('reject a reset like fetch does and error a truncated body while it is read', async () => {
    const sim = createSimulator({ now: () => NOW, stores: [{ name: 'Shop', tests: 5 }] });
    const url = `${sim.baseUrl}${API_PREFIX}/tests`;
    const init = { headers: bearer(keyOf(sim, 'Shop')) };
    sim.failNext('reset');
    await expect(sim.fetch(url, init)).rejects.toThrow(new TypeError('fetch failed'));
    sim.failNext('truncate');
    const truncated = await sim.fetch(url, init);
    expect(truncated.status).toBe(200);
    await expect(truncated.json()).rejects.toThrow(TypeError);
    expect((await sim.fetch(url, init)).status).toBe(200);
  });
});
