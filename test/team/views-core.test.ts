// The window's views on the team layer, at the core: a shared store's note and takeaway are the layer's (with authors), copied into the user file for every other reader; a change from the other desktop or from the CLI beside the window raises `team.changed`; a store not shared is untouched.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestFilter, TestListInput, type AppEvent } from '#shared/contract/index';
import type { Core } from '#core/types';
import { runTsx } from '../hosts/support/spawn';
import { allTestRows, startCore } from '../support/core';
import { type RunningServer, addMember, removeDir, startServer, tempDir, until } from './support';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const root = tempDir('team-views');
const serverDir = path.join(root, 'server');
let server: RunningServer;
let alice: Core;
let bob: Core;
const bobEvents: AppEvent[] = [];

/** The user file's own copy of a note, read by another connection (what search and reports read). */
function userFileNote(dir: string, testId: string): string | null {
  const db = new Database(path.join(dir, 'splitbook-user.db'), { readonly: true });
  try {
    const row = db
      .prepare("SELECT body FROM notes WHERE store_id = 'demo' AND test_id = ?")
      .get(testId) as { body: string } | undefined;
    return row?.body ?? null;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const tokens = {
    alice: addMember(serverDir, 'alice', 'all'),
    bob: addMember(serverDir, 'bob', 'all'),
  };
  server = await startServer(serverDir, []);
  alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
  bob = await startCore(path.join(root, 'bob'), { host: 'browser' });
  for (const core of [alice, bob]) await core.services.stores.openDemo({});
  await alice.services.team.join({ url: server.url, token: tokens.alice });
  await bob.services.team.join({ url: server.url, token: tokens.bob });
  await alice.services.notes.set({ storeId: 'demo', testId: 't1', body: 'Before sharing.' });
  const { teamStoreId } = await alice.services.team.share({ storeId: 'demo' });
  await bob.services.team.link({ storeId: 'demo', teamStoreId });
  bob.subscribe((event) => bobEvents.push(event));
});

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await server?.stop();
  removeDir(root);
});

describe("the views' notes on a shared store", () => {
  it("reads a colleague's note through notes.get with its authors, raises team.changed, and copies it into the user file", async () => {
    await until(
      async () => (await bob.services.notes.get({ storeId: 'demo', testId: 't1' })).body !== '',
      "the note shared before on bob's desktop",
    );
    bobEvents.length = 0;
    const saved = await alice.services.notes.set({
      storeId: 'demo',
      testId: 't1',
      body: 'Before sharing. Alice adds a line.',
    });
    expect(saved.authors?.[0]?.name).toBe('alice');
    // How soon it arrives is the team bench's figure (bench/team.bench.ts), never a timed test.
    await until(
      async () =>
        (await bob.services.notes.get({ storeId: 'demo', testId: 't1' })).body ===
        'Before sharing. Alice adds a line.',
      "alice's note on bob's desktop",
    );
    const note = await bob.services.notes.get({ storeId: 'demo', testId: 't1' });
    expect(note.authors?.map((a) => a.name)).toEqual(['alice']);
    expect(note.updatedAt).toBe(note.authors?.[0]?.at);
    expect(
      bobEvents.some(
        (e) =>
          e.name === 'team.changed' &&
          e.payload.storeId === 'demo' &&
          e.payload.testIds?.includes('t1') === true,
      ),
    ).toBe(true);
    expect(userFileNote(path.join(root, 'bob'), 't1')).toBe('Before sharing. Alice adds a line.');
  });

  it('writes a note typed in the window into the layer, seen by the other desktop and its team notes', async () => {
    await bob.services.notes.set({ storeId: 'demo', testId: 't2', body: 'Bob.' });
    await until(
      async () =>
        (await alice.services.team.notes({ storeId: 'demo' })).find((n) => n.testId === 't2')
          ?.text === 'Bob.',
      "bob's note in alice's layer",
    );
    expect(userFileNote(path.join(root, 'alice'), 't2')).toBe('Bob.');
  });

  it('sees a CLI note written beside the running window within the poll, with an event', async () => {
    bobEvents.length = 0;
    const run = await runTsx('src/main/hosts/cli/main.ts', [
      '--data-dir',
      path.join(root, 'bob'),
      'note',
      '--store',
      'demo',
      '--test',
      't3',
      '--set',
      'From the CLI.',
    ]);
    expect(run.code, run.stderr).toBe(0);
    await until(
      async () =>
        (await bob.services.notes.get({ storeId: 'demo', testId: 't3' })).body === 'From the CLI.',
      'the CLI note in the window',
      5_000,
    );
    await until(
      () =>
        bobEvents.some(
          (e) => e.name === 'team.changed' && e.payload.testIds?.includes('t3') === true,
        ),
      'team.changed for the CLI note',
      5_000,
    );
    // The window's connection sends it on: alice has it without a team sync from the CLI.
    await until(
      async () =>
        (await alice.services.notes.get({ storeId: 'demo', testId: 't3' })).body ===
        'From the CLI.',
      'the CLI note on the other desktop',
    );
  });

  it("writes a takeaway into the layer, copied into the colleague's user file for the programme", async () => {
    const [row] = await allTestRows(alice, 'demo');
    if (!row) throw new Error('the demo store has no cached test');
    const saved = await alice.services.programme.setTakeaway({
      storeId: 'demo',
      testId: row.id,
      text: 'Urgency copy works on mobile.',
    });
    expect(saved.text).toBe('Urgency copy works on mobile.');
    const takeaway = () => {
      const db = new Database(path.join(root, 'bob', 'splitbook-user.db'), { readonly: true });
      try {
        const found = db
          .prepare("SELECT text FROM takeaways WHERE store_id = 'demo' AND test_id = ?")
          .get(row.id) as { text: string } | undefined;
        return found?.text ?? null;
      } finally {
        db.close();
      }
    };
    await until(
      () => takeaway() === 'Urgency copy works on mobile.',
      "the takeaway on bob's desktop",
    );
  });

  it('keeps a store not shared as it was: no authors, no event', async () => {
    const solo = await startCore(path.join(root, 'solo'), { host: 'browser' });
    try {
      await solo.services.stores.openDemo({});
      const events: AppEvent[] = [];
      solo.subscribe((event) => events.push(event));
      const saved = await solo.services.notes.set({ storeId: 'demo', testId: 't1', body: 'Solo.' });
      expect(Object.keys(saved)).toEqual(['body', 'updatedAt']);
      const read = await solo.services.notes.get({ storeId: 'demo', testId: 't1' });
      expect(Object.keys(read)).toEqual(['body', 'updatedAt']);
      expect(events.filter((e) => e.name === 'team.changed')).toEqual([]);
    } finally {
      await solo.close();
    }
  });
});

describe('the "Mine" filter on a shared store', () => {
  /** Three of the demo store's test ids, read by the first test. */
  let ids: [string, string, string] = ['', '', ''];
  const mine = async (core: Core) =>
    (await core.services.tests.list(TestListInput.parse({ storeId: 'demo', mine: true }))).rows.map(
      (row) => row.id,
    );

  it("lists the tests whose team owner is this desktop's member, follows a colleague's change, and counts its chips from it", async () => {
    const [t1, t2, t3] = (await allTestRows(alice, 'demo')).map((row) => row.id);
    if (!t1 || !t2 || !t3) throw new Error('the demo store has three tests');
    ids = [t1, t2, t3];
    expect(await mine(alice)).toEqual([]);
    await alice.services.team.setOwner({ storeId: 'demo', testId: ids[0], owner: 'alice' });
    await alice.services.team.setOwner({ storeId: 'demo', testId: ids[1], owner: 'bob' });
    expect(await mine(alice)).toEqual([ids[0]]);
    await until(async () => (await mine(bob)).join() === ids[1], "bob's own test on bob's desktop");
    const facets = await bob.services.tests.facets(
      TestFilter.parse({ storeId: 'demo', mine: true }),
    );
    expect(Object.values(facets.statusCounts).reduce((a, b) => a + b, 0)).toBe(1);
    // Bob takes t1 over: it leaves alice's "Mine" and joins his.
    await bob.services.team.setOwner({ storeId: 'demo', testId: ids[0], owner: 'bob' });
    await until(async () => (await mine(alice)).length === 0, "t1 leaving alice's Mine");
    expect((await mine(bob)).sort()).toEqual([ids[0], ids[1]].sort());
    // Without the filter, the list is as before.
    const all = await alice.services.tests.list(TestListInput.parse({ storeId: 'demo' }));
    expect(all.rows.length).toBeGreaterThan(2);
  });

  it('fills the copy from the layer when a store is linked', async () => {
    const carol = await startCore(path.join(root, 'carol'), { host: 'browser' });
    try {
      await carol.services.stores.openDemo({});
      await carol.services.team.join({
        url: server.url,
        token: addMember(serverDir, 'carol', 'all'),
      });
      await bob.services.team.setOwner({ storeId: 'demo', testId: ids[2], owner: 'carol' });
      const { stores } = await alice.services.team.status({});
      const teamStoreId = stores[0]?.teamStoreId ?? '';
      await carol.services.team.link({ storeId: 'demo', teamStoreId });
      await until(async () => (await mine(carol)).join() === ids[2], "carol's test on her desktop");
    } finally {
      await carol.close();
    }
  });
});

describe('comments new to me', () => {
  it("counts a colleague's comments since I last saw the thread, never my own, and clears when seen", async () => {
    const [row] = await allTestRows(alice, 'demo');
    if (!row) throw new Error('the demo store has tests');
    const testId = row.id;
    await alice.services.team.addComment({
      storeId: 'demo',
      testId,
      text: 'Mine, not news to me.',
    });
    expect(
      (await alice.services.team.commentNews({ storeId: 'demo' })).find((n) => n.testId === testId),
    ).toBeUndefined();
    await until(
      async () =>
        (await bob.services.team.commentNews({ storeId: 'demo' })).find((n) => n.testId === testId)
          ?.count === 1,
      "alice's comment new to bob",
    );
    await bob.services.team.markCommentsSeen({ storeId: 'demo', testId });
    expect(
      (await bob.services.team.commentNews({ storeId: 'demo' })).find((n) => n.testId === testId),
    ).toBeUndefined();
    // A later comment is new again, once.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await alice.services.team.addComment({ storeId: 'demo', testId, text: 'One more.' });
    await until(
      async () =>
        (await bob.services.team.commentNews({ storeId: 'demo' })).find((n) => n.testId === testId)
          ?.count === 1,
      "alice's second comment new to bob",
    );
  });
});
