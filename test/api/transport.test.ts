// The wire details the simulator does not exercise, against a scripted loopback server.
import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClientOptions, type RequestEvent } from '#core/api/index';
import { MAX_UNREACHABLE_ATTEMPTS } from '#core/api/transport';
import { failure } from './support/failure';
import { listing, testRecord } from './support/fixtures';
import {
  freePort,
  sendJson,
  sendProblem,
  scriptedServers,
  type ScriptedServer,
} from './support/scripted-server';

const KEY = 'sk_live_transport_test_key_0123456789';
const serve = scriptedServers();

function clientOf(url: string, options: Partial<ApiClientOptions> = {}) {
  return createApiClient({ baseUrl: url, apiKey: KEY, maxBackoffMs: 10, ...options });
}

describe('requests', () => {
  it('carry the key only as a bearer token, and JSON bodies with their type', async () => {
    const s = await serve((req, res) =>
      req.method === 'POST'
        ? sendJson(res, 201, { id: '3f0e4b8c-1d2a-4c5b-9e6f-7a8b9c0d1e2f' })
        : sendJson(res, 200, listing([])),
    );
    const client = clientOf(`${s.url}/`);
    await client.listTests({ status: 'active', page: 2, perPage: 50 });
    await client.createTag({ name: 'Hero' });
    expect(s.received[0]).toMatchObject({
      method: 'GET',
      url: '/api/public/v1/tests?status=active&page=2&perPage=50',
      authorization: `Bearer ${KEY}`,
    });
    expect(s.received[1]).toMatchObject({
      method: 'POST',
      url: '/api/public/v1/tags',
      contentType: 'application/json',
      body: '{"name":"Hero"}',
    });
  });

  it('keep a path below the base URL', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, { campaigns: [] }));
    await clientOf(`${s.url}/store-7/`).listActiveCampaigns();
    expect(s.received[0]?.url).toBe('/store-7/api/public/v1/campaigns/active');
  });

  it('do not follow a redirect, so the key never goes to another address', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      res.end();
    });
    const error = await failure(clientOf(s.url).listTests());
    expect(error).toMatchObject({ kind: 'http', status: 302, retryable: false });
    expect(s.received).toHaveLength(1);
  });
});

describe('retry rules', () => {
  it('honours Retry-After given as an HTTP date', async () => {
    const serverNow = Date.parse('2026-11-22T10:00:00Z');
    let calls = 0;
    const s = await serve((_req, res) => {
      calls += 1;
      if (calls === 1)
        sendProblem(res, 429, 'Too many requests', 'Slow down', {
          'retry-after': 'Sun, 22 Nov 2026 10:00:01 GMT',
        });
      else sendJson(res, 200, { customAudiences: [] });
    });
    // The client's clock reads 300 ms before the date: it waits those 300 ms, not its own backoff (0 here).
    const events: RequestEvent[] = [];
    const client = clientOf(s.url, {
      now: () => serverNow + 700,
      random: () => 0,
      onRequest: (e) => events.push(e),
    });
    const started = Date.now();
    await client.listCustomAudiences();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(2_000);
    expect(events.map((e) => e.status)).toEqual([429, 200]);
  });

  it('retries a 429 for a POST too: it was refused, not applied', async () => {
    let calls = 0;
    const s = await serve((_req, res) => {
      calls += 1;
      if (calls === 1)
        sendProblem(res, 429, 'Too many requests', 'Slow down', { 'retry-after': '0' });
      else sendJson(res, 201, { id: '3f0e4b8c-1d2a-4c5b-9e6f-7a8b9c0d1e2f' });
    });
    await expect(clientOf(s.url).createTag({ name: 'Hero' })).resolves.toEqual({
      id: '3f0e4b8c-1d2a-4c5b-9e6f-7a8b9c0d1e2f',
    });
    expect(s.received).toHaveLength(2);
  });

  it('without Retry-After, waits a full-jitter backoff', async () => {
    let calls = 0;
    const s = await serve((_req, res) => {
      calls += 1;
      if (calls === 1) sendProblem(res, 429, 'Too many requests', 'Slow down');
      else sendJson(res, 200, { customAudiences: [] });
    });
    const started = Date.now();
    await clientOf(s.url, { maxBackoffMs: 30_000, random: () => 0.5 }).listCustomAudiences();
    // random() * min(cap, 250 * 2^0) = 125 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('ends a call whose Retry-After is longer than it may wait, telling how long', async () => {
    const s = await serve((_req, res) =>
      sendProblem(res, 429, 'Too many requests', 'Come back tomorrow', { 'retry-after': '86400' }),
    );
    const error = await failure(clientOf(s.url).listCustomAudiences());
    expect(error).toMatchObject({
      kind: 'rate-limited',
      retryAfterMs: 86_400_000,
      retryable: true,
      detail: 'Come back tomorrow',
    });
    expect(s.received).toHaveLength(1);
  });

  it('retries a POST whose connection was refused: it never reached the server', async () => {
    const port = await freePort();
    let sleeps = 0;
    const started: ScriptedServer[] = [];
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: KEY,
      // The server comes up while the client waits to retry.
      sleep: async () => {
        sleeps += 1;
        if (sleeps === 1)
          started.push(
            await serve(
              (_req, res) => sendJson(res, 201, { id: '3f0e4b8c-1d2a-4c5b-9e6f-7a8b9c0d1e2f' }),
              port,
            ),
          );
      },
    });
    await expect(client.createTag({ name: 'Late server' })).resolves.toEqual({
      id: '3f0e4b8c-1d2a-4c5b-9e6f-7a8b9c0d1e2f',
    });
    expect(started[0]?.received).toHaveLength(1);
  });

  it('names the host when nothing listens', async () => {
    const port = await freePort();
    const error = await failure(
      createApiClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: KEY,
        maxAttempts: 2,
        maxBackoffMs: 5,
      }).listTests(),
    );
    expect(error).toMatchObject({ kind: 'network', status: null, retryable: true });
    expect(error.toProblem()).toEqual({
      type: 'splitbook:offline',
      status: 503,
      title: "Cannot reach the store's API",
      detail: `No complete answer from 127.0.0.1:${port}: the connection was refused.`,
    });
  });

  it('gives up on a host that refuses connections after MAX_UNREACHABLE_ATTEMPTS, not after every attempt', async () => {
    const port = await freePort();
    const attempts: RequestEvent[] = [];
    const error = await failure(
      createApiClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: KEY,
        maxAttempts: 6,
        maxBackoffMs: 5,
        onRequest: (event) => attempts.push(event),
      }).listTests(),
    );
    expect(error.toProblem().type).toBe('splitbook:offline');
    expect(attempts).toHaveLength(MAX_UNREACHABLE_ATTEMPTS);
  });

  it('retries a GET that timed out, and succeeds when the server answers in time', async () => {
    let calls = 0;
    const s = await serve((_req, res) => {
      calls += 1;
      const answer = () => sendJson(res, 200, { customAudiences: [] });
      if (calls === 1) setTimeout(answer, 500);
      else answer();
    });
    const events: RequestEvent[] = [];
    await clientOf(s.url, {
      timeoutMs: 80,
      onRequest: (e) => events.push(e),
    }).listCustomAudiences();
    expect(events.map((e) => e.status)).toEqual([null, 200]);
  });

  it('times out a body that stalls after the headers', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"customAudiences":');
    });
    const error = await failure(
      clientOf(s.url, { timeoutMs: 80, maxAttempts: 2 }).listCustomAudiences(),
    );
    expect(error).toMatchObject({ kind: 'timeout', status: 200, retryable: true });
    expect(s.received).toHaveLength(2);
  });
});

describe('answers', () => {
  it('carry the title and detail of problem+json bodies', async () => {
    const s = await serve((_req, res) =>
      sendProblem(res, 409, 'Duplicate name', "A tag named 'Hero' already exists"),
    );
    const error = await failure(clientOf(s.url).createTag({ name: 'Hero' }));
    expect(error).toMatchObject({
      kind: 'http',
      status: 409,
      title: 'Duplicate name',
      detail: "A tag named 'Hero' already exists",
    });
  });

  it('fall back to words of their own for an error without problem details', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    const error = await failure(clientOf(s.url, { maxAttempts: 1 }).listTests());
    expect(error).toMatchObject({
      kind: 'http',
      status: 502,
      title: "The store's API failed",
      detail: expect.stringContaining('answered 502'),
    });
    expect(error.toProblem().type).toBe('splitbook:api');
  });

  it('refuse an envelope that is not the documented one, naming what is wrong', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, { items: [] }));
    const error = await failure(clientOf(s.url).listTests());
    expect(error).toMatchObject({ kind: 'invalid-response', retryable: false });
    expect(error.toProblem()).toMatchObject({
      type: 'splitbook:api',
      title: 'The API sent a response Splitbook cannot read',
    });
    expect(error.detail).toMatch(/^data: .*; pagination: /);
  });

  it('read a created audience as null when the 201 has no body', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(201);
      res.end();
    });
    await expect(clientOf(s.url).createCustomAudience({ name: 'Quiet' })).resolves.toBeNull();
  });

  it('keep every good record of a listing when one is bad', async () => {
    const bad = testRecord({ createdAt: 'yesterday' });
    const s = await serve((_req, res) =>
      sendJson(res, 200, listing([testRecord(), bad, testRecord({ status: 'archived' })])),
    );
    const page = await clientOf(s.url).listTests();
    expect(page.items.map((t) => t.status)).toEqual(['active', 'archived']);
    expect(page.rejected).toEqual([
      { id: bad.id, error: expect.stringMatching(/^createdAt: /), raw: bad, index: 1 },
    ]);
  });
});
