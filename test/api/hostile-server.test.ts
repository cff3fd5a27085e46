// A hostile server on loopback: endless or oversized bodies are cut off at a cap and reported as too
// large, and impossible pagination is refused before any of it is believed.
import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '#core/api/index';
import { MAX_LISTED_TESTS, walkCeiling } from '#core/api/pagination';
import { endless } from './support/endless';
import { failure } from './support/failure';
import { listing, testRecord } from './support/fixtures';
import { sendJson, startScriptedServer, type Script } from './support/scripted-server';

const KEY = 'sk_test_hostile_000000000';

async function withServer(
  script: Script,
  run: (client: ApiClient, received: () => number) => Promise<void>,
  options: Partial<Parameters<typeof createApiClient>[0]> = {},
): Promise<void> {
  const server = await startScriptedServer(script);
  try {
    const client = createApiClient({
      baseUrl: server.url,
      apiKey: KEY,
      maxAttempts: 3,
      ...options,
    });
    await run(client, () => server.received.length);
  } finally {
    await server.close();
  }
}

describe('response bodies are read up to a cap', () => {
  it('stops an endless body and says the answer was too large, once, not offline', async () => {
    await withServer(
      (_req, res) => endless(res),
      async (client, received) => {
        const error = await failure(client.listTests({ page: 1 }));
        expect(error.kind).toBe('too-large');
        expect(error.retryable).toBe(false);
        expect(error.toProblem()).toMatchObject({
          type: 'splitbook:too-large',
          title: "The store's answer was too large",
        });
        expect(error.detail).toContain('1 MB');
        expect(received()).toBe(1);
      },
      { maxBodyBytes: { other: 1024 * 1024 } },
    );
  });

  it('refuses a declared Content-Length beyond the cap without reading it', async () => {
    await withServer(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '900000000' });
        res.write('{');
      },
      async (client) => {
        expect((await failure(client.listTests())).kind).toBe('too-large');
      },
    );
  });

  it('gives results a larger cap than the other endpoints', async () => {
    const big = { padding: 'x'.repeat(2 * 1024 * 1024) };
    await withServer(
      (_req, res) => sendJson(res, 200, big),
      async (client) => {
        // 2 MB passes the results cap (4 MB here) and the JSON is read; the schema then refuses it.
        const results = await failure(client.getResults(testRecord().id as string));
        expect(results.kind).toBe('invalid-response');
        // The same 2 MB fails the cap of every other endpoint (1 MB here).
        expect((await failure(client.listCustomAudiences())).kind).toBe('too-large');
      },
      { maxBodyBytes: { other: 1024 * 1024, results: 4 * 1024 * 1024 } },
    );
  });
});

describe('impossible pagination is refused', () => {
  const cases: [string, Record<string, number>][] = [
    ['negative totals', { page: 1, perPage: 100, totalPages: -1, totalCount: -150 }],
    ['zero totals with records', { page: 1, perPage: 100, totalPages: 0, totalCount: 0 }],
    [
      'a page count that does not follow',
      { page: 1, perPage: 100, totalPages: 9, totalCount: 250 },
    ],
    [
      '2^31-1 pages for 250 tests',
      { page: 1, perPage: 100, totalPages: 2 ** 31 - 1, totalCount: 250 },
    ],
    ['a zero page size', { page: 1, perPage: 0, totalPages: 3, totalCount: 250 }],
  ];
  for (const [name, pagination] of cases) {
    it(`refuses ${name}`, async () => {
      await withServer(
        (_req, res) => sendJson(res, 200, { data: [testRecord()], pagination }),
        async (client, received) => {
          const error = await failure(client.listTests());
          expect(error.kind).toBe('invalid-response');
          expect(error.title).toContain('contradict');
          expect(received()).toBe(1);
        },
      );
    });
  }

  it('accepts an empty listing of 0 or 1 pages', async () => {
    for (const totalPages of [0, 1]) {
      await withServer(
        (_req, res) =>
          sendJson(res, 200, {
            data: [],
            pagination: { page: 1, perPage: 100, totalPages, totalCount: 0 },
          }),
        async (client) => expect((await client.listTests()).items).toEqual([]),
      );
    }
  });
});

describe('walkTests ends whatever the server claims', () => {
  it('stops a server that ignores `page` and alternates two pages', async () => {
    const a = [testRecord()];
    const b = [testRecord()];
    await withServer(
      (req, res) => {
        const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
        sendJson(res, 200, listing(page % 2 === 1 ? a : b, page, 1_000_000, 1));
      },
      async (client, received) => {
        const pages: number[] = [];
        const error = await failure(
          (async () => {
            for await (const p of client.walkTests({ perPage: 1 })) pages.push(p.page);
          })(),
        );
        expect(error.detail).toContain('same page twice');
        expect(received()).toBe(3);
      },
    );
  });

  it('sets its ceiling from totalCount and the page size received, not from totalPages', () => {
    const max = 2 ** 31 - 1;
    // Before: the ceiling followed totalPages, about 4.3e9 pages for 2^31-1.
    expect(walkCeiling(1, max, max, 100)).toBeLessThanOrEqual(1 + (MAX_LISTED_TESTS / 100) * 2 + 5);
    // A server that sends 1 record on pages it says hold 100 does not get 100 times the pages.
    expect(walkCeiling(1, 3, 250, 1)).toBe(1 + 2 * 2 + 5);
    expect(walkCeiling(1, max, 250, 100)).toBe(1 + 2 * 2 + 5);
  });
});
