// Review marks, annotations and the Changes view's team section across two desktops: alice on the CLI (`npm run cli` under tsx, `team sync`), bob a window's core (host 'browser', connected), separate data folders, the project's team server on loopback, tokens in the real OS keychain.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TeamStoreChanges } from '#shared/contract/index';
import type { Core } from '#core/types';
import { runTsx } from '../hosts/support/spawn';
import { allTestRows, startCore, syncStore } from '../support/core';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const ENTRY = 'src/main/hosts/cli/main.ts';
const realKeyring = process.env['SPLITBOOK_TEST_KEYRING'] === '1';
const root = tempDir('team-review');
const serverDir = path.join(root, 'server');
const aliceDir = path.join(root, 'alice');
let server: RunningServer;
let bob: Core;
let testId = '';
let title = '';
let commentId = '';

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const full = { ...process.env, ...env };
  if (!env['SPLITBOOK_TEAM_TOKEN']) delete full['SPLITBOOK_TEAM_TOKEN'];
  const run = await runTsx(ENTRY, ['--data-dir', aliceDir, ...args], { env: full });
  if (run.code !== 0) {
    throw new Error(`cli ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  }
  return run.stdout;
}

async function until(condition: () => Promise<boolean>, what: string, ms = 30_000) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > ms) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function bobChanges(): Promise<TeamStoreChanges> {
  const { stores } = await bob.services.team.changes({ storeId: 'demo' });
  const store = stores[0];
  if (!store) throw new Error('no team section for the shared store');
  return store;
}

/** A core on alice's data folder between two CLI runs: what her window would read. */
async function withAlice<T>(read: (core: Core) => Promise<T>): Promise<T> {
  const core = await startCore(aliceDir);
  try {
    return await read(core);
  } finally {
    await core.close();
  }
}

/** The user file's annotations of the demo store, read by another connection (what the charts read). */
function fileAnnotations(dir: string): { day: string; label: string }[] {
  const db = new Database(path.join(dir, 'splitbook-user.db'), { readonly: true });
  try {
    return db
      .prepare(
        "SELECT day, label FROM store_annotations WHERE store_id = 'demo' ORDER BY day, label",
      )
      .all() as { day: string; label: string }[];
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  if (!realKeyring) return;
  const tokens = {
    alice: addMember(serverDir, 'alice', 'all'),
    bob: addMember(serverDir, 'bob', 'all'),
  };
  server = await startServer(serverDir);
  await cli(['add-demo']);
  await cli(['sync', '--store', 'demo']);
  await cli(['team', 'join', '--url', server.url], { SPLITBOOK_TEAM_TOKEN: tokens.alice });
  const { teamStoreId } = JSON.parse(await cli(['team', 'share', '--store', 'demo', '--json'])) as {
    teamStoreId: string;
  };
  await cli(['team', 'sync']);

  bob = await startCore(path.join(root, 'bob'), { host: 'browser' });
  await bob.services.stores.openDemo({});
  await syncStore(bob, 'demo');
  // An annotation bob made before linking: linking makes it the team's.
  await bob.services.notes.addAnnotation({ storeId: 'demo', day: '2026-11-27', label: 'Sale' });
  await bob.services.team.join({ url: server.url, token: tokens.bob });
  await bob.services.team.link({ storeId: 'demo', teamStoreId });
  await bob.services.review.markReviewed({ storeId: 'demo' });
  const row = (await allTestRows(bob, 'demo')).find((r) => r.decision !== null);
  if (!row) throw new Error('the demo store has no test with a call');
  testId = row.id;
  title = row.title;
});

afterAll(async () => {
  await bob?.close();
  await server?.stop();
  removeDir(root);
});

describe('review marks, annotations and team changes on two desktops', () => {
  it("lists alice's note, comments, owner and sign-off in bob's Changes since his last review, each naming alice and when", async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    expect((await bobChanges()).count).toBe(0);
    await cli(['note', '--store', 'demo', '--test', testId, '--set', 'Alice looked at it.']);
    const posted = JSON.parse(
      await cli(['comment', '--store', 'demo', '--test', testId, '--text', 'Ship it?', '--json']),
    ) as { id: string };
    commentId = posted.id;
    const other = JSON.parse(
      await cli(['comment', '--store', 'demo', '--test', testId, '--text', 'Oops.', '--json']),
    ) as { id: string };
    await cli(['comment', '--store', 'demo', '--test', testId, '--delete', other.id]);
    await cli(['owner', '--store', 'demo', '--test', testId, '--set', 'bob']);
    await cli(['sign-off', '--store', 'demo', '--test', testId]);
    await cli(['team', 'sync']);

    await until(async () => (await bobChanges()).count >= 5, "alice's changes on bob's desktop");
    const store = await bobChanges();
    expect(store.since).not.toBeNull();
    expect(store.changes.map((c) => c.kind).sort()).toEqual(
      ['comment', 'commentDeleted', 'note', 'owner', 'signOff'].sort(),
    );
    for (const change of store.changes) {
      expect(change.by).toBe('alice');
      expect(change.testId).toBe(testId);
      expect(change.testTitle).toBe(title);
      expect(Date.parse(change.at)).toBeGreaterThan(Date.parse(store.since ?? ''));
      expect(change.summary.startsWith('alice ')).toBe(true);
    }
    const summaries = store.changes.map((c) => c.summary);
    expect(summaries).toContain('alice edited the note');
    expect(summaries).toContain('alice commented: “Ship it?”');
    expect(summaries).toContain('alice deleted their comment');
    expect(summaries).toContain('alice made bob the owner');
    expect(summaries.some((s) => /^alice approved the call “.+”$/.test(s))).toBe(true);
    // Newest first.
    const ats = store.changes.map((c) => Date.parse(c.at));
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
  });

  it("marking reviewed writes bob's mark in the layer: his section empties, alice sees who reviewed and when, and a later edit is listed alone", async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    const { reviewedAt } = await bob.services.review.markReviewed({ storeId: 'demo' });
    expect(await bobChanges()).toMatchObject({ since: reviewedAt, count: 0, changes: [] });

    await until(
      async () => (await bob.services.team.status({})).stores.every((s) => s.waiting === 0),
      "bob's review mark sent",
    );
    await cli(['team', 'sync']);
    const seen = await withAlice(async (core) => {
      const { stores } = await core.services.team.changes({ storeId: null });
      return stores;
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.reviews).toEqual([{ by: 'bob', at: reviewedAt }]);
    expect(seen[0]?.changes).toContainEqual(
      expect.objectContaining({
        kind: 'review',
        by: 'bob',
        at: reviewedAt,
        testId: null,
        summary: 'bob reviewed the store',
      }),
    );

    // Alice reviews too, from the CLI: her mark reaches bob, who sees it where the review state is.
    await cli(['review', '--store', 'demo']);
    await cli([
      'comment',
      '--store',
      'demo',
      '--test',
      testId,
      '--edit',
      commentId,
      '--text',
      'Ship it.',
    ]);
    await cli(['team', 'sync']);
    await until(
      async () => (await bobChanges()).count === 2,
      "alice's review and edit on bob's desktop",
    );
    const store = await bobChanges();
    expect(store.reviews.map((r) => r.by)).toEqual(['alice']);
    expect(store.changes.map((c) => [c.kind, c.summary])).toEqual([
      ['commentEdited', 'alice edited their comment: “Ship it.”'],
      ['review', 'alice reviewed the store'],
    ]);
  });

  it("shares annotations: one made before linking and one added in the window reach alice's user file; alice removes one, bob's file loses it", async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    const added = await bob.services.notes.addAnnotation({
      storeId: 'demo',
      day: '2026-11-30',
      label: 'Price change',
    });
    expect(added).toMatchObject({ storeId: 'demo', day: '2026-11-30', label: 'Price change' });
    expect(await bob.services.notes.annotations({ storeId: 'demo' })).toHaveLength(2);
    await until(
      async () => (await bob.services.team.status({})).stores.every((s) => s.waiting === 0),
      "bob's annotation sent",
    );
    await cli(['team', 'sync']);
    expect(fileAnnotations(aliceDir)).toEqual([
      { day: '2026-11-27', label: 'Sale' },
      { day: '2026-11-30', label: 'Price change' },
    ]);
    await withAlice(async (core) => {
      const changes = (await core.services.team.changes({ storeId: 'demo' })).stores[0];
      expect(changes?.changes.filter((c) => c.kind === 'annotation').map((c) => c.summary)).toEqual(
        ['bob added the annotation “Price change” on 2026-11-30'],
      );
      const sale = (await core.services.notes.annotations({ storeId: 'demo' })).find(
        (a) => a.label === 'Sale',
      );
      expect(
        await core.services.notes.removeAnnotation({ storeId: 'demo', id: sale?.id ?? -1 }),
      ).toEqual({ removed: true });
    });
    expect(fileAnnotations(aliceDir)).toEqual([{ day: '2026-11-30', label: 'Price change' }]);
    await cli(['team', 'sync']);
    await until(
      async () => (await bob.services.notes.annotations({ storeId: 'demo' })).length === 1,
      "alice's removal on bob's desktop",
    );
    expect(fileAnnotations(path.join(root, 'bob'))).toEqual([
      { day: '2026-11-30', label: 'Price change' },
    ]);
  });

  it('leaves a store not shared as it was: no team section, its review and annotations in the user file only', async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    const solo = await startCore(path.join(root, 'solo'), { host: 'browser' });
    try {
      await solo.services.stores.openDemo({});
      await syncStore(solo, 'demo');
      const { reviewedAt } = await solo.services.review.markReviewed({ storeId: 'demo' });
      expect(await solo.services.team.changes({ storeId: null })).toEqual({ stores: [] });
      expect(await solo.services.team.changes({ storeId: 'demo' })).toEqual({ stores: [] });
      const added = await solo.services.notes.addAnnotation({
        storeId: 'demo',
        day: '2026-11-30',
        label: 'Solo',
      });
      expect(added.createdAt).not.toBe('');
      expect(fileAnnotations(path.join(root, 'solo'))).toEqual([
        { day: '2026-11-30', label: 'Solo' },
      ]);
      const report = await solo.services.review.changes({
        storeId: 'demo',
        since: null,
        probabilityThreshold: 0.1,
      });
      expect(report.stores[0]?.reviewedAt).toBe(reviewedAt);
    } finally {
      await solo.close();
    }
  });
});
