// The window's freshness rules: an event reloads only the views showing what it changed, a burst makes one
// refresh, and a running sync refreshes at most every 2 s (only what is on screen), as views see it.
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { Resource } from '#shared/contract/index';
import { emit, listeners } from './bridge-stub';
import { Changes, followChanges, type Scope } from '../../src/renderer/src/lib/changes.svelte';

/** A view: its effect reads the version of what it shows and counts the reloads a change asks for. */
function view(changes: Changes, resources: readonly Resource[], scope: Scope) {
  let reloads = 0;
  let seen: number | null = null;
  const stop = $effect.root(() => {
    $effect(() => {
      const version = changes.versionOf(resources, scope);
      if (seen !== null && version !== seen) reloads += 1;
      seen = version;
    });
  });
  flushSync();
  return {
    get reloads() {
      return reloads;
    },
    stop,
  };
}

let changes: Changes;
let unfollow: () => void;
const settle = () => {
  vi.advanceTimersByTime(300);
  flushSync();
};

beforeEach(() => {
  vi.useFakeTimers();
  changes = new Changes();
  unfollow = followChanges(changes);
});
afterEach(() => {
  unfollow();
  vi.useRealTimers();
});

describe('an event reloads only the views showing what it changed', () => {
  test("an edit in store A reloads A's views and All stores, never store B's", () => {
    const listA = view(changes, ['tests'], { storeId: 'A' });
    const listB = view(changes, ['tests'], { storeId: 'B' });
    const all = view(changes, ['tests'], { storeId: null });
    const issuesA = view(changes, ['issues'], { storeId: 'A' });

    emit('edits.changed', { storeId: 'A' });
    settle();

    expect([listA.reloads, listB.reloads, all.reloads, issuesA.reloads]).toEqual([1, 0, 1, 0]);
  });

  test("a results change reloads that test's Results tab and its store's list, not another test's tab", () => {
    const tab1 = view(changes, ['results'], { storeId: 'A', testId: 't1' });
    const tab2 = view(changes, ['results'], { storeId: 'A', testId: 't2' });
    const otherStore = view(changes, ['results'], { storeId: 'B', testId: 't1' });
    const listA = view(changes, ['tests', 'results'], { storeId: 'A' });

    emit('results.changed', { storeId: 'A', testId: 't1' });
    settle();

    expect([tab1.reloads, tab2.reloads, otherStore.reloads, listA.reloads]).toEqual([1, 0, 0, 1]);
  });

  test("a sync's end reloads every test of its store and none of another", () => {
    const tab1 = view(changes, ['results'], { storeId: 'A', testId: 't1' });
    const tabB = view(changes, ['results'], { storeId: 'B', testId: 't1' });
    const campaignsA = view(changes, ['campaigns'], { storeId: 'A' });

    emit('sync.finished', {
      storeId: 'A',
      outcome: 'ok',
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-01-01T00:01:00Z',
      requests: 3,
      testsSeen: 2,
      testsRemoved: 0,
      resultsFetched: 2,
      setAside: 0,
      setAsideNotListed: 0,
      problem: null,
    });
    settle();

    expect([tab1.reloads, tabB.reloads, campaignsA.reloads]).toEqual([1, 0, 1]);
  });

  test("calls made again for every store (the settings) reload each store's calls, not its campaigns", () => {
    const callsA = view(changes, ['decisions'], { storeId: 'A' });
    const callsOfTest = view(changes, ['decisions'], { storeId: 'B', testId: 't9' });
    const campaignsA = view(changes, ['campaigns'], { storeId: 'A' });

    emit('decisions.changed', { storeId: null });
    settle();

    expect([callsA.reloads, callsOfTest.reloads, campaignsA.reloads]).toEqual([1, 1, 0]);
  });

  test('events that change no data reload nothing', () => {
    const all = view(changes, ['tests', 'results', 'decisions', 'stores'], { storeId: null });
    emit('sync.started', { storeIds: ['A'] });
    settle();
    expect(all.reloads).toBe(0);
  });
});

describe('settling', () => {
  test('a burst of events makes one refresh, after it settles', () => {
    const list = view(changes, ['tests'], { storeId: 'A' });
    for (let i = 0; i < 20; i += 1) emit('edits.changed', { storeId: 'A' });
    emit('results.changed', { storeId: 'A', testId: 't1' });
    flushSync();
    expect(list.reloads).toBe(0);
    settle();
    expect(list.reloads).toBe(1);
    settle();
    expect(list.reloads).toBe(1);
  });

  test("a running sync's progress refreshes at most every 2 s, and says only the screen needs it", () => {
    const list = view(changes, ['tests'], { storeId: 'A' });
    // followSyncEvents records progress (and refreshes the store list when a refresh was asked for).
    const asked: boolean[] = [];
    const progress = () =>
      asked.push(
        changes.record({
          name: 'sync.progress',
          payload: { storeId: 'A', phase: 'tests', done: 1, total: 9 },
        }),
      );

    progress();
    settle();
    expect(list.reloads).toBe(1);
    expect(changes.whileSyncing).toBe(true);

    for (let ms = 0; ms < 1500; ms += 100) {
      progress();
      vi.advanceTimersByTime(100);
    }
    flushSync();
    expect(list.reloads).toBe(1);
    expect(asked.filter(Boolean)).toHaveLength(1);

    vi.advanceTimersByTime(600);
    progress();
    settle();
    expect(list.reloads).toBe(2);

    // The end of the run asks for a whole refresh.
    emit('edits.changed', { storeId: 'A' });
    settle();
    expect(list.reloads).toBe(3);
    expect(changes.whileSyncing).toBe(false);
  });

  test("progress held back shows with the next refresh, even when another store's progress asks for it", () => {
    const listA = view(changes, ['tests'], { storeId: 'A' });
    const listB = view(changes, ['tests'], { storeId: 'B' });
    const progress = (storeId: string) =>
      changes.record({
        name: 'sync.progress',
        payload: { storeId, phase: 'tests', done: 1, total: 9 },
      });

    expect(progress('A')).toBe(true);
    settle();
    expect(progress('B')).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(progress('A')).toBe(true);
    settle();
    expect([listA.reloads, listB.reloads]).toEqual([2, 1]);
  });

  test("the campaigns phase of a sync does not reload the test list's store", () => {
    const list = view(changes, ['tests'], { storeId: 'A' });
    const campaigns = view(changes, ['campaigns'], { storeId: 'A' });
    changes.record({
      name: 'sync.progress',
      payload: { storeId: 'A', phase: 'campaigns', done: 1, total: null },
    });
    settle();
    expect([list.reloads, campaigns.reloads]).toEqual([0, 1]);
  });
});

test('a view that stopped following sees nothing more, and unsubscribing stops the events', () => {
  const list = view(changes, ['tests'], { storeId: 'A' });
  list.stop();
  unfollow();
  emit('edits.changed', { storeId: 'A' });
  settle();
  expect(list.reloads).toBe(0);
  expect(changes.versionOf(['tests'], { storeId: 'A' })).toBe(0);
  unfollow = () => undefined;
});

test('followChanges subscribes to the data events only (progress comes through followSyncEvents)', () => {
  const names = [...listeners.entries()].filter(([, set]) => set.size > 0).map(([name]) => name);
  expect(names.sort()).toEqual(
    [
      'decisions.changed',
      'edits.changed',
      'results.changed',
      'settings.changed',
      'stores.changed',
      'sync.finished',
      'team.changed',
    ].sort(),
  );
  expect(listeners.get('edits.changed')?.size).toBe(1);
});
