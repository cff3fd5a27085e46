// A shared store's decision settings and a test's planned length through the team layer, on two desktops (separate data folders, the project's team server on loopback, each exchange a `team sync`): the other desktop makes the same call, the last writer wins with who and when, the layer's values win at a link and a desktop's own fill a layer that has none, and a solo store keeps its settings to itself.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DecisionRow } from '#shared/contract/index';
import type { Core } from '#core/types';
import { runTsx } from '../hosts/support/spawn';
import { startCore, syncStore } from '../support/core';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const root = tempDir('team-settings');
const serverDir = path.join(root, 'server');
let server: RunningServer;
let alice: Core;
let bob: Core;
let teamStoreId = '';

/** Demo tests with a look (their basis names the plan and the settings): the same ids on every desktop. */
const PLANNED = '0d2dbef4-f785-4010-844d-d45292c3c4f3';
const BOBS = '5e96e196-d7f9-48fc-94c4-198d41537012';
const LATER = 'ec0c6fc6-d59f-43f2-abba-2c34df8bef9f';

/** A desktop's calls on the demo store, without when each was made (that is the desktop's own). */
async function calls(core: Core): Promise<Omit<DecisionRow, 'decidedAt'>[]> {
  const list = await core.services.decisions.list({ storeId: 'demo' });
  return list.rows
    .map(({ decidedAt: _, ...row }) => row)
    .sort((a, b) => (a.testId < b.testId ? -1 : 1));
}

const callOf = async (core: Core, testId: string) =>
  (await calls(core)).find((row) => row.testId === testId);

const overrides = async (core: Core) =>
  (await core.services.decisions.settings({})).stores.find((s) => s.storeId === 'demo')?.overrides;

/** `team sync` on each desktop in turn, as the CLI runs it. */
async function exchange(...cores: Core[]): Promise<void> {
  for (const core of cores) await core.services.team.sync({ timeoutMs: 30_000 });
}

/** A test's own planned length as the desktop's user file holds it (null: none). */
function planned(who: string, testId: string): number | null {
  const db = new Database(path.join(root, who, 'splitbook-user.db'), { readonly: true });
  try {
    const row = db
      .prepare(
        "SELECT planned_days AS days FROM test_plans WHERE store_id = 'demo' AND test_id = ?",
      )
      .get(testId) as { days: number | null } | undefined;
    return row?.days ?? null;
  } finally {
    db.close();
  }
}

function teamUpdates(dir: string): number {
  const db = new Database(path.join(dir, 'splitbook-user.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM team_updates').get() as { n: number }).n;
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
  alice = await startCore(path.join(root, 'alice'));
  bob = await startCore(path.join(root, 'bob'));
  for (const core of [alice, bob]) {
    await core.services.stores.openDemo({});
    expect((await syncStore(core, 'demo')).outcome).toBe('ok');
  }
  await alice.services.team.join({ url: server.url, token: tokens.alice });
  await bob.services.team.join({ url: server.url, token: tokens.bob });
});

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await server?.stop();
  removeDir(root);
});

describe("a shared store's decision settings and plans", () => {
  it('keeps a solo store to itself: its settings and plans touch no layer', async () => {
    await alice.services.decisions.setSettings({
      storeId: 'demo',
      patch: { minEffect: 0.08 },
      clear: [],
    });
    await alice.services.decisions.setPlan({ storeId: 'demo', testId: PLANNED, plannedDays: 60 });
    // Bob's own, set before he links the store: the team's will replace them.
    await bob.services.decisions.setSettings({
      storeId: 'demo',
      patch: { credibility: 0.9 },
      clear: [],
    });
    await bob.services.decisions.setPlan({ storeId: 'demo', testId: PLANNED, plannedDays: 14 });
    await bob.services.decisions.setPlan({ storeId: 'demo', testId: BOBS, plannedDays: 42 });
    expect(teamUpdates(path.join(root, 'alice'))).toBe(0);
    expect(await alice.services.team.decisionStamps({ storeId: 'demo' })).toEqual({
      settings: null,
      plans: [],
    });
    expect(planned('alice', PLANNED)).toBe(60);
  });

  it("at share writes the desktop's own to the layer; at link the layer's win, and a plan the layer lacks is added", async () => {
    ({ teamStoreId } = await alice.services.team.share({ storeId: 'demo' }));
    await exchange(alice);
    const shared = await alice.services.team.decisionStamps({ storeId: 'demo' });
    expect(shared.settings?.by).toBe('alice');
    expect(shared.plans).toEqual([
      expect.objectContaining({ testId: PLANNED, plannedDays: 60, by: 'alice' }),
    ]);

    await bob.services.team.link({ storeId: 'demo', teamStoreId });
    await exchange(bob, alice);
    // The team's settings and plan replaced bob's; bob's plan of a test the team had none of went to it.
    expect(await overrides(bob)).toEqual({ minEffect: 0.08 });
    expect(planned('bob', PLANNED)).toBe(60);
    expect(planned('alice', BOBS)).toBe(42);
    const stamps = await bob.services.team.decisionStamps({ storeId: 'demo' });
    expect(stamps.plans.find((p) => p.testId === BOBS)).toMatchObject({ by: 'bob' });
    expect(stamps.plans.find((p) => p.testId === PLANNED)).toMatchObject({ by: 'alice' });
    expect(await calls(bob)).toEqual(await calls(alice));
  });

  it('a plan and the settings set on one desktop give the same call on the other after team sync (and through `cli decisions --json`)', async () => {
    const before = await callOf(bob, LATER);
    await alice.services.decisions.setPlan({ storeId: 'demo', testId: LATER, plannedDays: 90 });
    await alice.services.decisions.setSettings({
      storeId: 'demo',
      patch: { minEffect: 0.1 },
      clear: [],
    });
    await exchange(alice, bob);
    const after = await callOf(bob, LATER);
    expect(after).not.toEqual(before);
    expect(planned('bob', LATER)).toBe(90);
    expect(after?.basis).toContain('effect ±10%');
    expect(await overrides(bob)).toEqual({ minEffect: 0.1 });
    expect(await calls(bob)).toEqual(await calls(alice));

    // The CLI's own process on each data folder says the same.
    const cli = async (who: string) => {
      const run = await runTsx('src/main/hosts/cli/main.ts', [
        '--data-dir',
        path.join(root, who),
        'decisions',
        '--store',
        'demo',
        '--json',
      ]);
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as DecisionRow[])
        .map(({ decidedAt: _, ...row }) => row)
        .sort((a, b) => (a.testId < b.testId ? -1 : 1));
    };
    expect(await cli('bob')).toEqual(await cli('alice'));
  });

  it('concurrent offline changes: the last writer wins on both desktops, and who/when says who won', async () => {
    await alice.services.decisions.setSettings({
      storeId: 'demo',
      patch: { minEffect: 0.12 },
      clear: [],
    });
    await alice.services.decisions.setPlan({ storeId: 'demo', testId: LATER, plannedDays: 30 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await bob.services.decisions.setSettings({
      storeId: 'demo',
      patch: { minEffect: 0.2 },
      clear: [],
    });
    await bob.services.decisions.setPlan({ storeId: 'demo', testId: LATER, plannedDays: 45 });
    await exchange(alice, bob, alice);
    for (const [who, core] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      expect(await overrides(core)).toEqual({ minEffect: 0.2 });
      expect(planned(who, LATER)).toBe(45);
      const stamps = await core.services.team.decisionStamps({ storeId: 'demo' });
      expect(stamps.settings?.by).toBe('bob');
      expect(stamps.plans.find((p) => p.testId === LATER)).toMatchObject({
        plannedDays: 45,
        by: 'bob',
      });
    }
    const [a, b] = await Promise.all([
      alice.services.team.decisionStamps({ storeId: 'demo' }),
      bob.services.team.decisionStamps({ storeId: 'demo' }),
    ]);
    expect(a).toEqual(b);
    expect(await calls(bob)).toEqual(await calls(alice));
  });

  it("clearing a setting or a plan is a write like any other: the other desktop's call goes back too", async () => {
    await bob.services.decisions.setSettings({ storeId: 'demo', patch: {}, clear: ['minEffect'] });
    await bob.services.decisions.setPlan({ storeId: 'demo', testId: LATER, plannedDays: null });
    await exchange(bob, alice);
    expect(await overrides(alice)).toEqual({});
    expect(planned('alice', LATER)).toBeNull();
    expect(await calls(bob)).toEqual(await calls(alice));
  });
});
