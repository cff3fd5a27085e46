// The browser host over real loopback HTTP: every refusal gets its status and the server keeps serving; calls,
// events and static files work; it listens on 127.0.0.1 only.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../src/main/hosts/browser/server';
import { CONTENT_SECURITY_POLICY } from '../../src/main/hosts/common/csp';
import { CALL_PATH, EVENTS_PATH, TOKEN_HEADER } from '#shared/http-bridge';
import { PROBLEM_TYPES, problem } from '#shared/problem';
import { send, type RawResponse } from './support/http';
import { createTestCore } from './support/test-core';

const root = mkdtempSync(join(tmpdir(), 'splitbook-browser-'));
const staticDir = join(root, 'renderer');
mkdirSync(join(staticDir, 'assets'), { recursive: true });
writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Splitbook</title>');
writeFileSync(join(staticDir, 'assets', 'index-abc123.js'), 'console.log("app")');
writeFileSync(join(staticDir, 'assets', 'index-abc123.css'), 'body{}');
writeFileSync(join(staticDir, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
writeFileSync(join(root, 'secret.txt'), 'TOP-SECRET');

const test = createTestCore({
  'stores.remove': () =>
    Promise.reject(problem('notFound', 404, 'Store not found', 'There is no store with id x.')),
  'sync.cancel': () =>
    Promise.reject(new Error('database at /home/me/.splitbook failed with key sk_live_SECRET')),
});
let host: BrowserHost;
let port: number;

function call(
  channel: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return send(port, {
    method: 'POST',
    path: `${CALL_PATH}/${channel}`,
    headers: { 'content-type': 'application/json', [TOKEN_HEADER]: host.token, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function problemOf(response: RawResponse): {
  type: string;
  status: number;
  title: string;
  detail: string;
} {
  const envelope = response.json() as {
    ok: boolean;
    problem: { type: string; status: number; title: string; detail: string };
  };
  expect(envelope.ok).toBe(false);
  return envelope.problem;
}

beforeAll(async () => {
  host = await startBrowserHost({ core: test.core, staticDir, port: 0, heartbeatMs: 100 });
  port = Number(new URL(host.origin).port);
});
afterAll(async () => {
  await host.close();
  rmSync(root, { recursive: true, force: true });
});

describe('startBrowserHost', () => {
  it('prints a URL on 127.0.0.1 that carries a fresh 256-bit token', async () => {
    expect(host.origin).toBe(`http://127.0.0.1:${port}`);
    expect(host.url).toBe(`${host.origin}/?token=${host.token}`);
    expect(Buffer.from(host.token, 'base64url')).toHaveLength(32);
    const other = await startBrowserHost({ core: test.core, staticDir });
    expect(other.token).not.toBe(host.token);
    await other.close();
  });

  it('listens on 127.0.0.1 only: not on ::1, not on any other interface', async () => {
    const reachable = (address: string) =>
      new Promise<boolean>((resolve) => {
        const socket = connect({ host: address, port }, () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
    expect(await reachable('127.0.0.1')).toBe(true);
    expect(await reachable('::1')).toBe(false);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i !== undefined && !i.internal && i.family === 'IPv4')
      .map((i) => i?.address ?? '');
    for (const address of others) expect(await reachable(address)).toBe(false);
  });
});

describe('calls', () => {
  it('round-trips a valid call: the parsed input reaches the core, its data comes back', async () => {
    const response = await call('sync.start', { storeId: 'acme' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      ok: true,
      data: { echo: 'sync.start', input: { storeId: 'acme' } },
    });
  });

  it('accepts the page opened as localhost too (Host and Origin of localhost:port)', async () => {
    const response = await call(
      'app.info',
      {},
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    );
    expect(response.status).toBe(200);
  });

  it("answers a service's problem with its status, and an unexpected error with a 500 that leaks nothing", async () => {
    const notFound = await call('stores.remove', { storeId: 'x' });
    expect(notFound.status).toBe(404);
    expect(problemOf(notFound).title).toBe('Store not found');

    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const crash = await call('sync.cancel', { storeId: 'x' });
    log.mockRestore();
    expect(crash.status).toBe(500);
    expect(problemOf(crash).title).toBe('Unexpected error');
    expect(crash.body).not.toMatch(/SECRET|splitbook\/|database/);
  });

  const refusals: [string, number, string, () => Promise<RawResponse>][] = [
    [
      'no token',
      401,
      PROBLEM_TYPES.unauthorized,
      () => call('app.info', {}, { [TOKEN_HEADER]: '' }),
    ],
    [
      'a wrong token',
      401,
      PROBLEM_TYPES.unauthorized,
      // The last character changed to another one (the token may end in 'A' itself: 1 run in 16).
      () =>
        call(
          'app.info',
          {},
          { [TOKEN_HEADER]: `${host.token.slice(0, -1)}${host.token.endsWith('A') ? 'B' : 'A'}` },
        ),
    ],
    [
      'the token only in the query string',
      401,
      PROBLEM_TYPES.unauthorized,
      () =>
        send(port, {
          method: 'POST',
          path: `${CALL_PATH}/app.info?token=${host.token}`,
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
    ],
    [
      'a rebinding Host (evil.example)',
      421,
      PROBLEM_TYPES.validation,
      () => call('app.info', {}, { host: `evil.example:${port}` }),
    ],
    [
      'a Host on another port',
      421,
      PROBLEM_TYPES.validation,
      () => call('app.info', {}, { host: `127.0.0.1:${port + 1}` }),
    ],
    [
      'a foreign Origin',
      403,
      PROBLEM_TYPES.forbidden,
      () => call('app.info', {}, { origin: 'https://evil.example' }),
    ],
    [
      'the null Origin of a sandboxed frame',
      403,
      PROBLEM_TYPES.forbidden,
      () => call('app.info', {}, { origin: 'null' }),
    ],
    [
      'a form post (text/plain)',
      415,
      PROBLEM_TYPES.validation,
      () => call('app.info', '{}', { 'content-type': 'text/plain' }),
    ],
    [
      'an urlencoded form',
      415,
      PROBLEM_TYPES.validation,
      () => call('app.info', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }),
    ],
    [
      'a body of 2 MB (Content-Length)',
      413,
      PROBLEM_TYPES.validation,
      () => call('app.info', JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) })),
    ],
    [
      'a body of 2 MB sent chunked',
      413,
      PROBLEM_TYPES.validation,
      () =>
        send(port, {
          method: 'POST',
          path: `${CALL_PATH}/app.info`,
          headers: { 'content-type': 'application/json', [TOKEN_HEADER]: host.token },
          body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }),
          chunked: true,
        }),
    ],
    [
      'a body that is not JSON',
      400,
      PROBLEM_TYPES.validation,
      () => call('app.info', '{"storeId":'),
    ],
    [
      'an input that fails the schema',
      400,
      PROBLEM_TYPES.validation,
      () => call('sync.start', { storeId: '' }),
    ],
    ['an unknown method', 404, PROBLEM_TYPES.notFound, () => call('stores.drop', {})],
    [
      'an unknown API route',
      404,
      PROBLEM_TYPES.notFound,
      () =>
        send(port, {
          method: 'POST',
          path: '/api/admin',
          headers: { [TOKEN_HEADER]: host.token, 'content-type': 'application/json' },
          body: '{}',
        }),
    ],
    [
      'a GET on a call',
      405,
      PROBLEM_TYPES.validation,
      () => send(port, { path: `${CALL_PATH}/app.info`, headers: { [TOKEN_HEADER]: host.token } }),
    ],
  ];

  it.each(refusals)(
    'refuses %s with %i and a problem Envelope, and keeps serving',
    async (_what, status, type, attempt) => {
      const before = test.calls.length;
      const response = await attempt();
      expect(response.status).toBe(status);
      expect(problemOf(response).type).toBe(type);
      expect(problemOf(response).status).toBe(status);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(test.calls.length).toBe(before);
      expect((await call('app.info', {})).status).toBe(200);
    },
  );

  it('says which field failed the schema', async () => {
    expect(problemOf(await call('sync.start', { storeId: '' })).detail).toMatch(/^storeId: /);
  });

  it('survives a malformed request line and a client that hangs up mid-body', async () => {
    const garbage = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () =>
        socket.write('NOT HTTP AT ALL\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);

    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.write(
          `POST ${CALL_PATH}/app.info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${TOKEN_HEADER}: ${host.token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"half":',
        );
        setTimeout(() => socket.destroy(), 50);
        socket.on('close', () => resolve());
      });
    });
    expect((await call('app.info', {})).status).toBe(200);
  });
});

describe('server-sent events', () => {
  function openStream(path: string, headers: Record<string, string> = {}) {
    return new Promise<{
      status: number;
      contentType: string;
      next: (pattern: RegExp) => Promise<string>;
      close: () => void;
    }>((resolve, reject) => {
      const req = get(
        { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
        (res) => {
          let text = '';
          const waiting: { pattern: RegExp; done: (s: string) => void }[] = [];
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            for (const w of [...waiting]) {
              const match = w.pattern.exec(text);
              if (match) {
                waiting.splice(waiting.indexOf(w), 1);
                w.done(match[0]);
              }
            }
          });
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type']),
            next: (pattern) =>
              new Promise((done) => {
                const match = pattern.exec(text);
                if (match) done(match[0]);
                else waiting.push({ pattern, done });
              }),
            close: () => req.destroy(),
          });
        },
      );
      req.on('error', reject);
    });
  }

  it('streams core events as `event:` + `data:` frames, with heartbeat comments, and unsubscribes on disconnect', async () => {
    const listenersBefore = test.listenerCount();
    const stream = await openStream(`${EVENTS_PATH}?token=${host.token}`);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toBe('text/event-stream; charset=utf-8');
    await stream.next(/: connected\n\n/);
    expect(test.listenerCount()).toBe(listenersBefore + 1);

    test.emit({
      name: 'sync.progress',
      payload: { storeId: 'acme', phase: 'results', done: 3, total: 9 },
    });
    expect(await stream.next(/event: sync\.progress\ndata: .*\n\n/)).toBe(
      'event: sync.progress\ndata: {"storeId":"acme","phase":"results","done":3,"total":9}\n\n',
    );
    await stream.next(/: heartbeat\n\n/);

    stream.close();
    await vi.waitFor(() => expect(test.listenerCount()).toBe(listenersBefore));
  });

  it.each([
    ['no token', `${EVENTS_PATH}`, {}, 401],
    ['a wrong token', `${EVENTS_PATH}?token=nope`, {}, 401],
    ['a foreign Origin', `${EVENTS_PATH}?token=TOKEN`, { origin: 'https://evil.example' }, 403],
    ['a rebinding Host', `${EVENTS_PATH}?token=TOKEN`, { host: 'evil.example' }, 421],
  ] as const)('refuses a stream with %s', async (_what, path, headers, status) => {
    const response = await send(port, { path: path.replace('TOKEN', host.token), headers });
    expect(response.status).toBe(status);
    expect(test.listenerCount()).toBe(0);
  });
});

describe('static files', () => {
  it('serves index.html for / without a token, with the CSP and security headers, never cached', async () => {
    const response = await send(port, { path: '/' });
    expect(response.status).toBe(200);
    expect(response.body).toContain('<title>Splitbook</title>');
    expect(response.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });

  it('serves the page with the token in its query string (the printed URL)', async () => {
    expect((await send(port, { path: `/?token=${host.token}` })).status).toBe(200);
  });

  it.each([
    ['/assets/index-abc123.js', 'text/javascript; charset=utf-8'],
    ['/assets/index-abc123.css', 'text/css; charset=utf-8'],
    ['/assets/logo.svg', 'image/svg+xml'],
    ['/index.html', 'text/html; charset=utf-8'],
  ])('serves %s as %s', async (path, type) => {
    const response = await send(port, { path });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(type);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await send(port, { method: 'HEAD', path: '/assets/index-abc123.js' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect((await send(port, { method: 'DELETE', path: '/index.html' })).status).toBe(405);
  });

  it.each([
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
    '/%252e%252e/secret.txt',
    '/index.html%00.js',
    `/${encodeURIComponent(join(root, 'secret.txt'))}`,
    '/assets',
    '/missing.js',
    '/%E0%A4%A',
    '//evil.example/index.html',
  ])('never serves anything outside the folder or that is not a file: %s', async (path) => {
    const response = await send(port, { path });
    expect([400, 404]).toContain(response.status);
    expect(response.body).not.toContain('TOP-SECRET');
  });
});

describe('close', () => {
  it('ends open event streams and stops listening', async () => {
    const { core } = createTestCore();
    const own = await startBrowserHost({ core, staticDir });
    const ownPort = Number(new URL(own.origin).port);
    const ended = new Promise<void>((resolve) => {
      get(
        { host: '127.0.0.1', port: ownPort, path: `${EVENTS_PATH}?token=${own.token}` },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
          res.on('error', () => resolve());
          void own.close();
        },
      );
    });
    await ended;
    await expect(send(ownPort, { path: '/' })).rejects.toThrow();
  });
});
