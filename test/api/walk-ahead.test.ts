// walkTests with pages asked ahead: the same order, resume and guards as one page at a time, at most `ahead` requests more, and pages dropped at the end are cancelled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, TestListPage } from '#core/api/index';
import { createApiClient } from '#core/api/index';
import { failure } from './support/failure';
import { listing, testRecord } from './support/fixtures';
import { sendJson, startScriptedServer, type Script } from './support/scripted-server';
import { STORE, serveSim, type ServedSim } from './support/simulator';

const AHEAD = 3;

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
  for await (const page of client.walkTests({ ahead: AHEAD, ...opts })) pages.push(page);
  return pages;
}

async function withScriptedPages(
  answer: (page: number) => unknown,
  run: (client: ApiClient) => Promise<void>,
  delay: (page: number) => number = () => 0,
): Promise<number[]> {
  const script: Script = (req, res) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
    setTimeout(() => {
      if (!res.destroyed) sendJson(res, 200, answer(page));
    }, delay(page));
  };
  const server = await startScriptedServer(script);
  try {
    await run(createApiClient({ baseUrl: server.url, apiKey: 'sk_test_walk_0000000000' }));
    return server.received.map((r) => Number(new URL(r.url, 'http://x').searchParams.get('page')));
  } finally {
    await server.close();
  }
}

describe('walkTests with pages asked ahead', () => {
  it('yields every page in order, ending at totalPages, asking for no page past it', async () => {
    const before = served.sim.stats().requests;
    const pages = await walkAll(served.client(), { perPage: 7 });
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    expect(pages.flatMap((p) => p.items.map((t) => t.id))).toEqual(
      served.sim.snapshot(STORE).tests.map((t) => t.id),
    );
    expect(served.sim.stats().requests - before).toBe(5);
  });

  it('yields in order when later pages come back first', async () => {
    const records = Array.from({ length: 8 }, () => testRecord());
    let yielded: number[] = [];
    const asked = await withScriptedPages(
      (page) => listing(records.slice((page - 1) * 2, page * 2), page, 4, 2),
      async (client) => {
        const pages = await walkAll(client, { perPage: 2 });
        yielded = pages.map((p) => p.page);
        expect(pages.flatMap((p) => p.items.map((t) => t.id))).toEqual(records.map((r) => r.id));
      },
      (page) => (page === 2 ? 120 : 0),
    );
    expect(yielded).toEqual([1, 2, 3, 4]);
    expect([...asked].sort()).toEqual([1, 2, 3, 4]);
  });

  it('starts where a resumed walk left off', async () => {
    const pages = await walkAll(served.client(), { perPage: 10, startPage: 3 });
    expect(pages.map((p) => p.page)).toEqual([3]);
  });

  it('cancels the pages asked ahead when the caller stops', async () => {
    const before = served.sim.stats().requests;
    for await (const page of served.client().walkTests({ perPage: 5, ahead: AHEAD })) {
      if (page.page === 2) break;
    }
    // Pages 1 and 2, and at most AHEAD more already on their way; none of them surfaces as an error.
    expect(served.sim.stats().requests - before).toBeLessThanOrEqual(2 + AHEAD);
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  it('ends quietly when the listing shrinks under it and a page comes back empty', async () => {
    const asked = await withScriptedPages(
      (page) => listing(page === 1 ? [testRecord()] : [], page, 5),
      async (client) => expect((await walkAll(client)).map((p) => p.page)).toEqual([1, 2]),
    );
    expect(asked.length).toBeLessThanOrEqual(1 + AHEAD);
  });

  it('stops a server that ignores `page` and sends the same records forever', async () => {
    const same = [testRecord(), testRecord()];
    const asked = await withScriptedPages(
      () => listing(same, 1, 1_000_000),
      async (client) => {
        const error = await failure(walkAll(client));
        expect(error).toMatchObject({ kind: 'invalid-response', retryable: false });
        expect(error.detail).toContain('same page twice');
      },
    );
    expect(asked.length).toBeLessThanOrEqual(1 + AHEAD);
  });

  it('stops a server whose page count keeps growing ahead of the walk', async () => {
    const asked = await withScriptedPages(
      (page) => listing([testRecord()], page, page + 1),
      async (client) => {
        const error = await failure(walkAll(client));
        expect(error.kind).toBe('invalid-response');
      },
    );
    expect(asked.length).toBeLessThan(20);
  });
});
