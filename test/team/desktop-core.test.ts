// A window's core on a team (host 'browser': it stays connected): changes flow both ways without a `team sync`, it reconnects by itself after the server's restart, and its updates are compacted and survive a restart of the core.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { COMPACT_AFTER } from '#core/db/user/team';
import { startCore } from '../support/core';
import { type RunningServer, addMember, removeDir, startServer, tempDir, until } from './support';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const root = tempDir('team-core');
const serverDir = path.join(root, 'server');
let server: RunningServer;
let port = 0;
const cores: Core[] = [];
let alice: Core;
let bob: Core;

async function serve(): Promise<void> {
  server = await startServer(serverDir, port === 0 ? [] : ['--port', String(port)]);
  port = Number(new URL(server.url).port);
}

const noteText = async (core: Core, testId: string) =>
  (await core.services.team.notes({ storeId: 'demo' })).find((n) => n.testId === testId)?.text ??
  '';

beforeAll(async () => {
  const tokens = {
    alice: addMember(serverDir, 'alice', 'all'),
    bob: addMember(serverDir, 'bob', 'all'),
  };
  await serve();
  alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
  bob = await startCore(path.join(root, 'bob'), { host: 'browser' });
  cores.push(alice, bob);
  for (const core of cores) await core.services.stores.openDemo({});
  await alice.services.team.join({ url: server.url, token: tokens.alice });
  await bob.services.team.join({ url: server.url, token: tokens.bob });
});

afterAll(async () => {
  for (const core of cores) await core.close();
  await server?.stop();
  removeDir(root);
});

describe("a window's core on a team", () => {
  it('stays connected: a note reaches the other desktop with no team sync', async () => {
    const { teamStoreId } = await alice.services.team.share({ storeId: 'demo' });
    await bob.services.team.link({ storeId: 'demo', teamStoreId });
    await alice.services.team.setNote({
      storeId: 'demo',
      testId: 't1',
      text: 'Alice.',
      append: false,
    });
    await until(
      async () => (await noteText(bob, 't1')) === 'Alice.',
      "alice's note on bob's desktop",
    );
    await until(async () => (await bob.services.team.status({})).connected, 'bob connected');
    expect((await alice.services.team.status({})).connected).toBe(true);
  });

  it('keeps offline edits while the server is down and exchanges them when it is back, by itself', async () => {
    await server.stop();
    await until(async () => !(await alice.services.team.status({})).connected, 'alice offline');
    await alice.services.team.setNote({
      storeId: 'demo',
      testId: 't1',
      text: 'Alice offline.',
      append: true,
    });
    await bob.services.team.setNote({
      storeId: 'demo',
      testId: 't1',
      text: 'Bob offline.',
      append: true,
    });
    const waiting = await alice.services.team.status({});
    expect(waiting.stores[0]?.waiting).toBeGreaterThan(0);
    await serve();
    await until(
      async () => {
        const [a, b] = [await noteText(alice, 't1'), await noteText(bob, 't1')];
        return a === b && a.includes('Alice offline.') && a.includes('Bob offline.');
      },
      'both offline edits on both desktops',
      90_000,
    );
    await until(
      async () => (await alice.services.team.status({})).stores[0]?.waiting === 0,
      "alice's edits confirmed",
    );
  });

  it('compacts its updates once the server holds them, and reads the same document after a restart', async () => {
    for (let i = 0; i < COMPACT_AFTER + 50; i++) {
      await alice.services.team.setNote({
        storeId: 'demo',
        testId: 't2',
        text: `edit ${i}`,
        append: false,
      });
    }
    const last = `edit ${COMPACT_AFTER + 49}`;
    await until(async () => (await noteText(bob, 't2')) === last, 'the last edit on bob');
    await until(
      async () => (await alice.services.team.status({})).stores[0]?.waiting === 0,
      'every edit confirmed',
    );
    const rows = () => {
      const db = new Database(path.join(root, 'alice', 'splitbook-user.db'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM team_updates').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    await until(async () => rows() <= COMPACT_AFTER + 1, 'compaction');
    const before = await alice.services.team.notes({ storeId: 'demo' });
    await alice.close();
    cores.splice(cores.indexOf(alice), 1);
    alice = await startCore(path.join(root, 'alice'), { host: 'cli' });
    cores.push(alice);
    expect(await alice.services.team.notes({ storeId: 'demo' })).toEqual(before);
  });
});
