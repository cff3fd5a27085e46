// A listing page too large or unreadable is read again in smaller pages (page p of size s at size d is
// pages (p−1)·s/d+1 … p·s/d), so only the record at fault is rejected; a server whose every answer
// is at fault still ends the walk with its error, after a few requests.
import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '#core/api/index';
import type { WalkedPage } from '#core/api/client';
import { recordIdInHead, smallerPageSize } from '#core/api/isolate';
import { endless } from './support/endless';
import { failure } from './support/failure';
import { testRecord } from './support/fixtures';
import { startScriptedServer, type Script } from './support/scripted-server';

const KEY = 'sk_test_isolate_00000000';
const CAP = 256 * 1024;

/** A server paging `records` (JSON text each) as the API does, and the (page, perPage) it was asked. */
async function withListing(
  records: string[] | ((page: number, perPage: number) => string | null),
  run: (client: ApiClient, asked: [number, number][]) => Promise<void>,
): Promise<void> {
  const asked: [number, number][] = [];
  const script: Script = (req, res) => {
    const url = new URL(req.url, 'http://x');
    const page = Number(url.searchParams.get('page'));
    const perPage = Number(url.searchParams.get('perPage'));
    asked.push([page, perPage]);
    if (typeof records === 'function') {
      const body = records(page, perPage);
      if (body === null) return endless(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
      return;
    }
    const data = records.slice((page - 1) * perPage, page * perPage);
    const pagination = {
      page,
      perPage,
      totalPages: Math.ceil(records.length / perPage),
      totalCount: records.length,
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"data":[${data.join(',')}],"pagination":${JSON.stringify(pagination)}}`);
  };
  const server = await startScriptedServer(script);
  try {
    const client = createApiClient({
      baseUrl: server.url,
      apiKey: KEY,
      maxBodyBytes: { other: CAP },
      maxBackoffMs: 5,
    });
    await run(client, asked);
  } finally {
    await server.close();
  }
}

async function walkAll(client: ApiClient, perPage = 100): Promise<WalkedPage[]> {
  const pages: WalkedPage[] = [];
  for await (const page of client.walkTests({ perPage })) pages.push(page);
  return pages;
}

const records = (n: number) =>
  Array.from({ length: n }, (_, k) => testRecord({ title: `Test ${k + 1}` }));
const tooLarge = (record: Record<string, unknown>) =>
  JSON.stringify({ ...record, title: 'x'.repeat(CAP + 1) });

describe('smaller pages', () => {
  it('halve an even page and divide an odd one, down to one record', () => {
    expect([100, 50, 25, 5, 7, 2].map(smallerPageSize)).toEqual([50, 25, 5, 1, 1, 1]);
  });

  it('map page 2 of 100 onto pages 3 and 4 of 50, and so on down to the one record at fault', async () => {
    const tests = records(200);
    const bad = tests[136]; // listing position 137, on page 2
    if (!bad) throw new Error('no test 137');
    const sent = tests.map((t) => (t === bad ? tooLarge(t) : JSON.stringify(t)));
    await withListing(sent, async (client, asked) => {
      const pages = await walkAll(client);
      // Level by level (smaller pages of one level go out together, in any order).
      const inOrder = [...asked].sort(([p1, n1], [p2, n2]) => n2 - n1 || p1 - p2);
      expect(inOrder).toEqual([
        [1, 100],
        [2, 100],
        [3, 50], // positions 101-150: too large
        [4, 50],
        [5, 25],
        [6, 25], // 126-150: too large
        [26, 5],
        [27, 5],
        [28, 5], // 136-140: too large
        [29, 5],
        [30, 5],
        [136, 1],
        [137, 1], // the record alone: too large
        [138, 1],
        [139, 1],
        [140, 1],
      ]);
      expect(pages.map((p) => p.page)).toEqual([1, 2]);
      const second = pages[1];
      expect(second?.pagination).toEqual({ page: 2, perPage: 100, totalPages: 2, totalCount: 200 });
      expect(second?.items.map((t) => t.id)).toEqual(
        tests
          .slice(100)
          .filter((t) => t !== bad)
          .map((t) => t.id),
      );
      expect(second?.rejected).toEqual([
        {
          id: bad.id,
          index: 36,
          raw: null,
          error: expect.stringMatching(/^The record is too large: .*more than 256 KB/),
        },
      ]);
      expect(second?.shifted).toBe(false);
    });
  });

  it('keeps every record of a page with two at fault, one in each half', async () => {
    const tests = records(100);
    const bad = new Set([tests[3], tests[88]]);
    const sent = tests.map((t) => (bad.has(t) ? tooLarge(t) : JSON.stringify(t)));
    await withListing(sent, async (client) => {
      const [page] = await walkAll(client);
      expect(page?.items).toHaveLength(98);
      expect(page?.rejected.map((r) => [r.id, r.index])).toEqual([
        [tests[3]?.id, 3],
        [tests[88]?.id, 88],
      ]);
    });
  });

  it("takes the listing's counts from the page before when no smaller page of this one can be read", async () => {
    const tests = records(4);
    const sent = tests.map((t, k) => (k >= 2 ? tooLarge(t) : JSON.stringify(t)));
    await withListing(sent, async (client) => {
      const pages = await walkAll(client, 2);
      expect(pages.map((p) => [p.page, p.items.length, p.rejected.map((r) => r.id)])).toEqual([
        [1, 2, []],
        [2, 0, [tests[2]?.id, tests[3]?.id]],
      ]);
      expect(pages[1]?.pagination).toEqual({ page: 2, perPage: 2, totalPages: 2, totalCount: 4 });
    });
  });

  it('tells the id of a record whose answer is not JSON, after asking for it twice', async () => {
    const tests = records(10);
    const sent = tests.map((t, k) =>
      k === 6 ? JSON.stringify(t).replace('"period":14', '"period":NaN') : JSON.stringify(t),
    );
    await withListing(sent, async (client, asked) => {
      const [page] = await walkAll(client, 10);
      expect(page?.items).toHaveLength(9);
      expect(page?.rejected).toEqual([
        expect.objectContaining({
          id: tests[6]?.id,
          index: 6,
          error: expect.stringContaining('not valid JSON'),
        }),
      ]);
      // Each unreadable answer was asked for twice before it was read in smaller pages.
      expect(asked.filter(([p, n]) => p === 1 && n === 10)).toHaveLength(2);
      expect(asked.filter(([p, n]) => p === 7 && n === 1)).toHaveLength(2);
    });
  });
});

describe('a server at fault in every answer', () => {
  it('still ends the walk with "too large", after a few smaller pages', async () => {
    await withListing(
      () => null,
      async (client, asked) => {
        const error = await failure(walkAll(client));
        expect(error.kind).toBe('too-large');
        expect(asked.length).toBeLessThanOrEqual(7);
      },
    );
  });

  it('still ends the walk with "unreadable", after a few smaller pages', async () => {
    await withListing(
      () => '{"data":[,}',
      async (client, asked) => {
        const error = await failure(walkAll(client));
        expect(error).toMatchObject({ kind: 'invalid-response', title: 'Unreadable response' });
        expect(asked.length).toBeLessThanOrEqual(14);
      },
    );
  });
});

describe('the id in the first bytes of an answer', () => {
  const id = '0b7f2c1e-6a39-4c55-9b1e-2f0d8d3a7c41';
  it("is the first record's own id, not a nested one nor the pagination's", () => {
    expect(recordIdInHead(`{"data":[{"id":"${id}","title":"xxxx`)).toBe(id);
    expect(
      recordIdInHead(
        `{"pagination":{"page":1,"id":"no"},"data":[{"control":{"id":"nested"},"tags":[{"id":"t"}],"id":"${id}","title":"x`,
      ),
    ).toBe(id);
    expect(recordIdInHead(`{ "data" : [ { "title" : "a \\" \\u0041", "id" : "${id}" } ] }`)).toBe(
      id,
    );
  });

  it('is null when the answer is cut before it, or the record has none', () => {
    expect(recordIdInHead(`{"data":[{"title":"xxxxxxxx`)).toBeNull();
    expect(recordIdInHead(`{"data":[{"id":"${id.slice(0, 10)}`)).toBeNull();
    expect(recordIdInHead(`{"data":[{"id":42,"title":"x"}],"pagination":{}}`)).toBeNull();
    expect(recordIdInHead(`{"data":[{"title":"x"},{"id":"${id}"}]}`)).toBeNull();
    expect(recordIdInHead('')).toBeNull();
  });
});
