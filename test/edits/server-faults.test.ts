// Edits queued with the CLI across server faults (issue 23, item 3 a and b), over HTTP on loopback: the
// store applies a PATCH and answers 500, or applies it and drops the connection before answering. After
// the next syncs every edit is in the store, none is lost or left pending, a test gets its edit at most a
// few times, a later edit is never overwritten by an older one, and both files pass SQLite's check.
import { afterEach, expect, it } from 'vitest';
import {
  faultWorld,
  fieldHistory,
  integrityOf,
  patchesPerTest,
  type FaultWorld,
} from './fault-world';

let world: FaultWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const FAULTS = {
  'applies the PATCH and answers 500': (w: FaultWorld) => w.failAfterApply(1),
  'applies the PATCH and drops the connection before answering': (w: FaultWorld) =>
    w.sim.loseAnswers(1, 'reset'),
} as const;

/** Which test the user edits again after the fault: one whose edit has not left yet, or the faulted one. */
const LATER_EDIT_OF = ['a test not sent yet', 'the test whose answer was lost'] as const;

it.each(
  (Object.keys(FAULTS) as (keyof typeof FAULTS)[]).flatMap((fault) =>
    LATER_EDIT_OF.map((later) => [fault, later] as const),
  ),
)(
  'the store %s, then %s is edited again: every edit arrives, the later one last',
  async (fault, later) => {
    world = await faultWorld();
    const w = world;
    const launched = w.sim
      .snapshot('Acme')
      .tests.filter((t) => ['active', 'paused'].includes(t.status));
    const [first, second, third] = launched;
    if (!first || !second || !third) throw new Error('three launched tests needed');
    const edit = async (...args: string[]) => {
      const run = await w.cli(['edit', '--store', 'Acme', ...args]);
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
    };
    await edit('--test', first.id, '--set', 'title=First try');
    await edit('--test', second.id, '--set', 'priority=high', '--set', 'impact=2');
    await edit('--test', third.id, '--add-tag', 'Across faults');

    // The first write is the first test's PATCH: the store applies it, the answer goes wrong, and the
    // connection is gone for the rest of that sync.
    FAULTS[fault](w);
    w.unreachableAfterNextPatch();
    const faulted = await w.cli(['sync']);
    expect(faulted.err).toContain('Acme: offline.');
    w.reachable();
    expect(w.applied.map((a) => [a.testId, a.test.title])).toEqual([[first.id, 'First try']]);
    const waiting = await w.cli(['pending']);
    expect(waiting.out).toMatch(/First try\s+queued/);

    // Meanwhile the user changes their mind: a different, later edit of the same field.
    const again = later === 'a test not sent yet' ? second : first;
    await edit('--test', again.id, '--set', 'title=Second thought');
    for (let i = 0; i < 2; i++) {
      const synced = await w.cli(['sync']);
      expect(synced.err).toBe('');
      expect(synced.code).toBe(0);
    }

    const server = new Map(w.sim.snapshot('Acme').tests.map((t) => [t.id, t]));
    expect(server.get(again.id)?.title).toBe('Second thought');
    expect(server.get(first.id === again.id ? second.id : first.id)?.title).toBe(
      first.id === again.id ? second.title : 'First try',
    );
    expect(server.get(second.id)).toMatchObject({ priority: 'high', impact: 2 });
    const tags = w.sim.snapshot('Acme').tags.filter((t) => t.name === 'Across faults');
    expect(tags).toHaveLength(1);
    expect(server.get(third.id)?.tags.map((t) => t.id)).toContain(tags[0]?.id);
    expect((await w.cli(['pending'])).out).toBe('No pending edits.');

    // At most a few times each; once the later title arrived, the older one never came back.
    for (const [, count] of patchesPerTest(w.applied)) expect(count).toBeLessThanOrEqual(3);
    const titles = fieldHistory(w.applied, again.id, 'title');
    expect(titles.at(-1)).toBe('Second thought');
    expect(titles.slice(titles.indexOf('Second thought'))).not.toContain('First try');
    expect(integrityOf(w.dir.path)).toEqual({ 'splitbook.db': 'ok', 'splitbook-user.db': 'ok' });
  },
  120_000,
);

const AFTER_APPLY = {
  'answers 500': (w: FaultWorld, count: number) => w.failAfterApply(count),
  'drops the connection': (w: FaultWorld, count: number) => w.sim.loseAnswers(count, 'reset'),
} as const;

it.each(Object.keys(AFTER_APPLY) as (keyof typeof AFTER_APPLY)[])(
  'a store that applies each of 20 title edits and %s is caught up in one sync, each sent once',
  async (fault) => {
    world = await faultWorld({ tests: 30 });
    const w = world;
    const tests = w.sim.snapshot('Acme').tests.slice(0, 20);
    for (const [i, test] of tests.entries()) {
      const run = await w.cli([
        'edit',
        '--store',
        'Acme',
        '--test',
        test.id,
        '--set',
        `title=Edit ${i}`,
      ]);
      expect(run.code, run.err).toBe(0);
    }
    AFTER_APPLY[fault](w, 20);
    const synced = await w.cli(['sync']);
    // Every answer said "failed", yet the store holds each edit: read back, each is confirmed.
    expect(synced.err).toBe('');
    expect(synced.code).toBe(0);
    expect(synced.out).toMatch(/20 edits sent, 0 failed/);
    expect((await w.cli(['pending'])).out).toBe('No pending edits.');
    const server = new Map(w.sim.snapshot('Acme').tests.map((t) => [t.id, t.title]));
    for (const [i, test] of tests.entries()) expect(server.get(test.id)).toBe(`Edit ${i}`);
    expect([...patchesPerTest(w.applied).values()]).toEqual(tests.map(() => 1));
    expect(integrityOf(w.dir.path)).toEqual({ 'splitbook.db': 'ok', 'splitbook-user.db': 'ok' });
  },
  120_000,
);

it('a store that answers 500 without applying keeps the edit queued, and the ones after it', async () => {
  world = await faultWorld({ tests: 30 });
  const w = world;
  const [first, second] = w.sim.snapshot('Acme').tests;
  if (!first || !second) throw new Error('two tests needed');
  for (const [test, title] of [
    [first, 'Refused once'],
    [second, 'Behind it'],
  ] as const) {
    const run = await w.cli([
      'edit',
      '--store',
      'Acme',
      '--test',
      test.id,
      '--set',
      `title=${title}`,
    ]);
    expect(run.code, run.err).toBe(0);
  }
  // Both pushes of the sync (before its pull, and after it for what still waits) are refused.
  w.refuseWrites(2);
  const refused = await w.cli(['sync']);
  expect(w.applied).toEqual([]);
  const pending = (await w.cli(['pending'])).out;
  expect(pending).toMatch(/Refused once\s+queued/);
  expect(pending).toMatch(/Behind it\s+queued/);
  expect(refused.out).toMatch(/0 edits sent, 0 failed, 0 in conflict/);
  expect(refused.code, refused.err).toBe(0);

  // Once the store takes writes again, the next sync sends both, each once.
  const synced = await w.cli(['sync']);
  expect(synced.code, synced.err).toBe(0);
  expect((await w.cli(['pending'])).out).toBe('No pending edits.');
  expect(w.applied.map((a) => a.test.title)).toEqual(['Refused once', 'Behind it']);
}, 120_000);
