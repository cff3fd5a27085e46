// walkTests: every page of GET /tests in order, and an end even when the server's pagination lies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, TestListPage } from '#core/api/index';
import { createApiClient } from '#core/api/index';
import { failure } from './support/failure';
import { listing, testRecord } from './support/fixtures';
import { sendJson, startScriptedServer, type Script } from './support/scripted-server';
import { STORE, serveSim, type ServedSim } from './support/simulator';

let served: ServedSim;
beforeAll(async () => {
  served = await serveSim();
});
afterAll(() => served.close());

async function walkAll(
  client: ApiClient,
  opts: Parameters<ApiClient['walkTests']>[0] = {},
): Promise<(TestListPage & { page: number })[]> {
  const pages: (TestListPage & { page: number })[] = [];
  for await (const page of client.walkTests(opts)) pages.push(page);
  return pages;
}

/** A client of a scripted server whose `page` query the script sees as a number. */
async function withScriptedPages(
  answer: (page: number) => unknown,
  run: (client: ApiClient) => Promise<void>,
): Promise<number> {
  const script: Script = (req, res) =>
    sendJson(res, 200, answer(Number(new URL(req.url, 'http://x').searchParams.get('page'))));
  const server = await startScriptedServer(script);
  try {
    await run(createApiClient({ baseUrl: server.url, apiKey: 'sk_test_walk_0000000000' }));
    return server.received.length;
  } finally {
    await server.close();
  }
}

describe('walkTests', () => {
  it('yields every page in order, ending at totalPages', async () => {
    const pages = await walkAll(served.client(), { perPage: 7 });
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    expect(pages.flatMap((p) => p.items.map((t) => t.id))).toEqual(
      served.sim.snapshot(STORE).tests.map((t) => t.id),
    );
  });

  it('starts where a resumed walk left off', async () => {
    const pages = await walkAll(served.client(), { perPage: 10, startPage: 3 });
    expect(pages.map((p) => p.page)).toEqual([3]);
    expect(pages[0]?.items.map((t) => t.id)).toEqual(
      served.sim
        .snapshot(STORE)
        .tests.slice(20)
        .map((t) => t.id),
    );
  });

  it('can be stopped between pages by the caller', async () => {
    const before = served.sim.stats().requests;
    for await (const page of served.client().walkTests({ perPage: 5 })) if (page.page === 2) break;
    expect(served.sim.stats().requests - before).toBe(2);
  });

  it('ends quietly when the listing shrinks under it and a page comes back empty', async () => {
    const requests = await withScriptedPages(
      (page) => listing(page === 1 ? [testRecord()] : [], page, 5),
      async (client) => expect((await walkAll(client)).map((p) => p.page)).toEqual([1, 2]),
    );
    expect(requests).toBe(2);
  });

  it('stops a server that ignores `page` and sends the same records forever', async () => {
    const same = [testRecord(), testRecord()];
    const requests = await withScriptedPages(
      () => listing(same, 1, 1_000_000),
      async (client) => {
        const error = await failure(walkAll(client));
        expect(error).toMatchObject({ kind: 'invalid-response', retryable: false });
        expect(error.detail).toContain('same page twice');
      },
    );
    expect(requests).toBe(2);
  });

  it('stops a server whose page count keeps growing ahead of the walk', async () => {
    const requests = await withScriptedPages(
      (page) => listing([testRecord()], page, page + 1),
      async (client) => {
        const error = await failure(walkAll(client));
        expect(error.kind).toBe('invalid-response');
      },
    );
    expect(requests).toBeLessThan(20);
  });
});
