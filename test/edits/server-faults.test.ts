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
