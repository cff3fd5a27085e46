// The in-process fetch the demo store uses: a faithful fetch with no port.
import { describe, expect, it } from 'vitest';
import { Test, TestListResponse } from '#shared/api/index';
import { API_PREFIX, createSimulator } from '#simulator/index';
import { bearer, NOW } from './support';

describe('in-process fetch', () => {
  const sim = createSimulator({
    seed: 42,
    now: () => NOW,
    stores: [{ name: 'Demo store', tests: 300 }],
  });
  const key = sim.stores[0]?.apiKey ?? '';
  const url = `${sim.baseUrl}${API_PREFIX}/tests`;

  it('serves the demo store like the real API, with Response objects', async () => {
    const response = await sim.fetch(url, { headers: bearer(key) });
    expect(response).toBeInstanceOf(Response);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = TestListResponse.parse(await response.json());
    expect(body.pagination.totalCount).toBe(300);
    for (const record of body.data) Test.parse(record);
  });

  it('accepts a Request, a URL or a string, but not a relative path', async () => {
    expect((await sim.fetch(new Request(url, { headers: bearer(key) }))).status).toBe(200);
    expect((await sim.fetch(new URL(url), { headers: bearer(key) })).status).toBe(200);
    await expect(sim.fetch(`${API_PREFIX}/tests`)).rejects.toThrow(TypeError);
  });

  it('rejects with the abort reason when the signal is aborted', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      sim.fetch(url, { headers: bearer(key), signal: aborted.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    sim.setFaults({ latencyMs: 200 });
    const slow = new AbortController();
    const pending = sim.fetch(url, { headers: bearer(key), signal: slow.signal });
    slow.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    sim.setFaults({ latencyMs: 0 });
  });

  it('moves updatedAt on PATCH and shows sync-relevant changes made by tests', async () => {
    const [first, second] = sim.snapshot('Demo store').tests;
    const patched = await sim.fetch(`${url}/${first?.id}`, {
      method: 'PATCH',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Edited in the app' }),
    });
    expect(patched.status).toBe(204);
    expect(Date.parse(sim.snapshot('Demo store').tests[0]?.updatedAt ?? '')).toBeGreaterThan(
      Date.parse(first?.updatedAt ?? ''),
    );

    const touched = sim.touchTest('Demo store', second?.id ?? '', { title: 'Edited elsewhere' });
    expect(Date.parse(touched.updatedAt)).toBeGreaterThan(Date.parse(second?.updatedAt ?? ''));
    expect(sim.removeTest('Demo store', second?.id ?? '')).toBe(true);
    const added = sim.addTest('Demo store', { title: 'Brand new test' });
    const listing = TestListResponse.parse(
      await (await sim.fetch(`${url}?perPage=100`, { headers: bearer(key) })).json(),
    );
    expect(listing.pagination.totalCount).toBe(300);
    expect(listing.data[0]).toMatchObject({
      id: added.id,
      title: 'Brand new test',
      status: 'draft',
    });
    expect(listing.data.some((record) => Test.parse(record).id === second?.id)).toBe(false);
    expect((await sim.fetch(`${url}/${second?.id}`, { headers: bearer(key) })).status).toBe(404);
  });
});
