// The team server's door: the first line and the TLS rule, member commands, a store only to those granted it (on the wire), revocation within 5 s, no token in clear on disk.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import WebSocket from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { noteOf, setNote } from '#shared/team/texts';
import {
  Desktop,
  type RunningServer,
  addMember,
  removeDir,
  startServer,
  teamCli,
  teamCliFails,
  tempDir,
  waitFor,
} from './support';
import { AUTH_PERMISSION_DENIED, authFrame, rawClient, syncStep1Frame } from './wire';

// Child processes (the server, its member commands under tsx) start slowly on a busy two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const now = () => new Date().toISOString();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function folder(prefix: string): string {
  const dir = tempDir(prefix);
  cleanups.push(() => removeDir(dir));
  return dir;
}

async function serve(dir: string, args: string[] = []): Promise<RunningServer> {
  const server = await startServer(dir, args);
  cleanups.push(() => server.stop().then(() => undefined));
  return server;
}

function desktop(server: RunningServer, token: string, stores: string[]): Desktop {
  const one = new Desktop(server.url, token);
  one.connect(stores);
  cleanups.push(() => one.disconnect());
  return one;
}

describe('serving', () => {
  it('prints {"url": "ws://127.0.0.1:P"} as its first line and serves on that port', async () => {
    const server = await serve(folder('first-line'));
    expect(server.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${server.httpUrl}/healthz`);
    expect(await health.json()).toEqual({ ok: true });
  });

  it('refuses a non-loopback address without TLS, and serves it behind a TLS proxy when told so', async () => {
    const dir = folder('no-tls');
    const refused = teamCliFails(dir, '--host', '0.0.0.0', '--port', '0');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('Refusing to serve 0.0.0.0 without TLS');
    const proxied = await serve(dir, ['--host', '0.0.0.0', '--behind-tls-proxy']);
    expect(proxied.url).toMatch(/^ws:\/\/0\.0\.0\.0:\d+$/);
  });

  it('serves wss:// with --tls-cert and --tls-key, and a desktop syncs over it', async (ctx) => {
    const dir = folder('tls');
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          key,
          '-out',
          cert,
        ],
        { stdio: 'ignore' },
      );
    } catch {
      ctx.skip('openssl is not installed: no certificate to serve TLS with');
    }
    const token = addMember(dir, 'Alice', 'all');
    const server = await serve(dir, ['--tls-cert', cert, '--tls-key', key]);
    expect(server.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
    const ca = readFileSync(cert);
    // The desktop trusts this one certificate, as it would a real one through the system's CAs.
    class TrustingWebSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { ca });
      }
    }
    const alice = new Desktop(server.url, token, TrustingWebSocket);
    alice.connect(['s1']);
    cleanups.push(() => alice.disconnect());
    await alice.waitSynced();
    setNote(alice.doc('s1'), 't1', 'over TLS', { by: 'Alice', at: now() });
    await alice.waitSynced();
  });
});

describe('members', () => {
  it('add prints the token once; the list shows grants; grant, revoke and remove answer in JSON', () => {
    const dir = folder('members');
    const added = teamCli(dir, 'member', 'add', '--name', 'Alice', '--stores', 'all') as {
      name: string;
      token: string;
    };
    expect(added.name).toBe('Alice');
    expect(added.token).toMatch(/^sbt_[A-Za-z0-9_-]{43}$/);
    teamCli(dir, 'member', 'add', '--name', 'Bob', '--stores', 'store-a,store-b');
    teamCli(dir, 'member', 'add', '--name', 'Carol');
    const list = teamCli(dir, 'member', 'list') as { name: string; stores: unknown }[];
    expect(list.map(({ name, stores }) => ({ name, stores }))).toEqual([
      { name: 'Alice', stores: 'all' },
      { name: 'Bob', stores: ['store-a', 'store-b'] },
      { name: 'Carol', stores: [] },
    ]);
    expect(JSON.stringify(list)).not.toContain(added.token);
    expect(teamCli(dir, 'grant', '--name', 'Carol', '--store', 'store-b')).toEqual({
      name: 'Carol',
      store: 'store-b',
      granted: true,
    });
    expect(teamCli(dir, 'revoke', '--name', 'Bob', '--store', 'store-a')).toMatchObject({
      revoked: true,
    });
    expect(teamCli(dir, 'revoke', '--name', 'Bob', '--store', 'store-a')).toMatchObject({
      revoked: false,
    });
    expect(teamCli(dir, 'member', 'remove', '--name', 'Alice')).toEqual({
      name: 'Alice',
      removed: true,
    });
    const after = teamCli(dir, 'member', 'list') as { name: string; stores: unknown }[];
    expect(after.map(({ name, stores }) => ({ name, stores }))).toEqual([
      { name: 'Bob', stores: ['store-b'] },
      { name: 'Carol', stores: ['store-b'] },
    ]);
    expect(teamCliFails(dir, 'member', 'add', '--name', 'Bob').stderr).toContain('exists already');
    expect(teamCliFails(dir, 'member', 'remove', '--name', 'Zed').stderr).toContain(
      'no member named "Zed"',
    );
    expect(teamCliFails(dir, 'grant', '--name', 'Bob', '--store', 'bad id!').status).toBe(2);
    expect(teamCliFails(dir, 'member', 'add', '--name', ' padded').status).toBe(2);
  });

  it('the data folder holds no token in clear, only its hash', async () => {
    const dir = folder('no-clear-token');
    const token = addMember(dir, 'Alice', 'all');
    const server = await serve(dir);
    const alice = desktop(server, token, ['s1']);
    await alice.waitSynced();
    setNote(alice.doc('s1'), 't1', 'a note', { by: 'Alice', at: now() });
    await alice.waitSynced();
    alice.disconnect();
    await server.stop();
    const files = readdirSync(dir);
    expect(files).toContain('team.db');
    const bytes = files.map((file) => readFileSync(path.join(dir, file)));
    expect(bytes.some((content) => content.includes(Buffer.from('a note')))).toBe(true); // the grep can see
    for (const content of bytes) {
      expect(content.includes(Buffer.from(token))).toBe(false);
      expect(content.includes(Buffer.from(token.slice(4)))).toBe(false);
    }
  });
});

describe('a store only to those granted it', () => {
  it('a member without the grant gets a refusal and not one byte of the document (raw WebSocket)', async () => {
    const dir = folder('no-grant');
    const alice = addMember(dir, 'Alice', 'all');
    const bob = addMember(dir, 'Bob', 'store-b');
    const server = await serve(dir);
    const writer = desktop(server, alice, ['store-a', 'store-b']);
    await writer.waitSynced();
    setNote(writer.doc('store-a'), 't1', 'SECRET-OF-STORE-A', { by: 'Alice', at: now() });
    setNote(writer.doc('store-b'), 't1', 'shared-with-bob', { by: 'Alice', at: now() });
    await writer.waitSynced();

    const raw = await rawClient(server.url);
    cleanups.push(() => raw.close());
    raw.send(authFrame('store-a', bob));
    raw.send(syncStep1Frame('store-a'));
    raw.send(authFrame('store-b', bob));
    raw.send(syncStep1Frame('store-b'));
    await waitFor(() => raw.received('shared-with-bob'), 'store-b to reach Bob');
    await new Promise((resolve) => setTimeout(resolve, 300)); // anything of store-a would have come by now
    const ofA = raw.frames.filter((frame) => frame.doc === 'store-a');
    expect(ofA.map((frame) => [frame.type, frame.body[0]])).toEqual([[2, AUTH_PERMISSION_DENIED]]);
    expect(new TextDecoder().decode(ofA[0]?.body)).toContain('not granted this store');
    expect(raw.received('SECRET-OF-STORE-A')).toBe(false);

    // An unknown token gets nothing either; the HTTP listing shows Bob only his store.
    const stranger = await rawClient(server.url);
    cleanups.push(() => stranger.close());
    stranger.send(authFrame('store-b', 'sbt_not-a-member'));
    stranger.send(syncStep1Frame('store-b'));
    await waitFor(() => stranger.frames.length > 0, 'a refusal');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stranger.frames.map((frame) => [frame.type, frame.body[0]])).toEqual([
      [2, AUTH_PERMISSION_DENIED],
    ]);
    expect(stranger.received('shared-with-bob')).toBe(false);
    const listing = await fetch(`${server.httpUrl}/v1/stores`, {
      headers: { authorization: `Bearer ${bob}` },
    });
    expect(
      ((await listing.json()) as { stores: { teamStoreId: string }[] }).stores.map(
        (s) => s.teamStoreId,
      ),
    ).toEqual(['store-b']);
    expect((await fetch(`${server.httpUrl}/v1/stores`)).status).toBe(401);
  });

  it('a store is made by POST /v1/stores (granted to its maker) and opened; an unknown one is refused to a member without `all`', async () => {
    const dir = folder('share');
    const bob = addMember(dir, 'Bob');
    const server = await serve(dir);
    const shared = await fetch(`${server.httpUrl}/v1/stores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}` },
    });
    expect(shared.status).toBe(201);
    const { teamStoreId } = (await shared.json()) as { teamStoreId: string };
    const one = desktop(server, bob, [teamStoreId, 'made-up-store']);
    await one.waitSynced([teamStoreId]);
    await waitFor(() => one.failures.length > 0, 'the refusal of made-up-store');
    expect(one.failures).toEqual([
      expect.stringContaining('made-up-store: The team has no such store'),
    ]);
  });
});

describe('revocation', () => {
  it.each([
    ['revoke --store', (dir: string) => teamCli(dir, 'revoke', '--name', 'Bob', '--store', 's1')],
    ['member remove', (dir: string) => teamCli(dir, 'member', 'remove', '--name', 'Bob')],
    [
      'member remove and add again under the same name (a new token), in one transaction',
      (dir: string) => {
        const db = new Database(path.join(dir, 'team.db'));
        db.transaction(() => {
          db.prepare("DELETE FROM members WHERE name = 'Bob'").run();
          db.prepare(
            "INSERT INTO members (name, token_hash, all_stores, created_at) VALUES ('Bob', 'another', 1, '2026-03-01T10:00:00.000Z')",
          ).run();
        })();
        db.close();
      },
    ],
  ])(
    '%s cuts an open connection off within 5 s, and later changes never reach it',
    async (_name, revoke) => {
      const dir = folder('revoke');
      const alice = addMember(dir, 'Alice', 'all');
      const bob = addMember(dir, 'Bob', 's1');
      const server = await serve(dir);
      const a = desktop(server, alice, ['s1']);
      const b = desktop(server, bob, ['s1']);
      await a.waitSynced();
      await b.waitSynced();
      setNote(a.doc('s1'), 't1', 'before', { by: 'Alice', at: now() });
      await waitFor(() => noteOf(b.doc('s1'), 't1').text === 'before', 'the note to reach Bob');
      revoke(dir); // returns once the revocation is committed to the data folder
      const revokedAt = performance.now();
      await waitFor(() => !b.synced('s1'), 'Bob to be cut off', 5_000);
      expect(performance.now() - revokedAt).toBeLessThan(5_000);
      setNote(a.doc('s1'), 't1', 'after the revocation', { by: 'Alice', at: now() });
      await a.waitSynced();
      await waitFor(() => b.failures.length > 0, "Bob's reconnection to be refused", 5_000);
      expect(noteOf(b.doc('s1'), 't1').text).toBe('before');
    },
  );
});
