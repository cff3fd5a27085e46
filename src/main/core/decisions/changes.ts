// Which calls a sync changed: each run's store is read before and after (the test's call and the key it
// was made with), so the Decisions view can count what changed since the user looked, and a background
// sync can say which tests became ready for a call. Never the user's doing: a test with edits of the user
// (waiting, or sent since the store last synced) and a call made again with other settings are left out.
import { DecisionCall } from '#shared/domain/decisions/index';
import type { SyncReport } from '#shared/contract/index';
import { getStoreRow } from '../db/cache/stores';
import { needsCall } from './order';
import type { DecisionChange } from '../db/user/background';
import type { Db } from '../db/types';
import { rowCallsOf } from '../db/cache/decisions';
import { testsWithEdits } from '../db/user/outbox';

export type RunChanges = {
  /** Tests whose call changed to one that needs the consultant (ship, check the data, …). */
  news: DecisionChange[];
  /** Tests whose call changed back to one that needs nobody (keep running): no longer news. */
  settled: string[];
};

/**
 * What the tracker needs of a sync engine (sync/run.ts SyncEngine is one, passed in by the core): it
 * wraps `run` and passes every other method through. Named here so decisions/ never imports sync/.
 */
export interface RunsSyncs {
  run(storeId: string): Promise<SyncReport>;
  isRunning(storeId: string): boolean;
}

/** An engine whose every run is compared before and after. */
export type Tracked<Engine extends RunsSyncs> = Engine & {
  /** Runs a sync as `run` does, and says which calls it changed (null: it did not end ok, or had nothing to compare). */
  runTracked(storeId: string): Promise<{ report: SyncReport; changes: RunChanges | null }>;
};

type Before = {
  calls: Map<string, { call: string | null; key: string | null }>;
  edited: Set<string>;
};

/**
 * Wraps the engine so every run (the window's, the CLI's, a background one) is compared before and
 * after; `onChanges` receives what a run that ended ok (or partly) changed.
 */
export function trackDecisionChanges<Engine extends RunsSyncs>(deps: {
  db: Db;
  engine: Engine;
  onChanges(storeId: string, changes: RunChanges): void;
}): { engine: Tracked<Engine>; edited(storeId: string): void } {
  const { db, engine } = deps;
  /** Tests the user edited in this process since the store's last sync ended ok: their calls may move by it. */
  const editedSince = new Map<string, Set<string>>();

  function editedTests(storeId: string): Set<string> {
    const ids = new Set(editedSince.get(storeId));
    for (const recordId of testsWithEdits(db, storeId)) ids.add(recordId);
    return ids;
  }

  function before(storeId: string): Before | null {
    // A store never synced has nothing to compare: its first sync is where calls start, not news.
    if (getStoreRow(db, storeId)?.lastSyncedAt == null) return null;
    const rows = rowCallsOf(db, storeId);
    return {
      calls: new Map(rows.map((row) => [row.id, { call: row.call, key: row.key }])),
      edited: editedTests(storeId),
    };
  }

  function after(storeId: string, was: Before): RunChanges {
    const edited = new Set([...was.edited, ...editedTests(storeId)]);
    const rows = rowCallsOf(db, storeId);
    const news: DecisionChange[] = [];
    const settled: string[] = [];
    for (const row of rows) {
      const old = was.calls.get(row.id);
      // A test new to the store is not a change; nor is a call the user caused.
      if (old === undefined || row.call === old.call || edited.has(row.id)) continue;
      // Made again with other settings or another plan (the user's), or by newer rules: not the store's news.
      if (old.key !== null && row.key !== old.key) continue;
      const call = DecisionCall.safeParse(row.call).data;
      if (call === undefined) continue;
      if (needsCall(call)) {
        news.push({
          testId: row.id,
          title: row.title,
          previous: old.call,
          call,
          words: row.words ?? call,
        });
      } else {
        settled.push(row.id);
      }
    }
    return { news, settled };
  }

  async function runTracked(
    storeId: string,
  ): Promise<{ report: SyncReport; changes: RunChanges | null }> {
    // A run already under way was (or was not) tracked by whoever started it.
    if (engine.isRunning(storeId)) return { report: await engine.run(storeId), changes: null };
    let was: Before | null = null;
    try {
      was = before(storeId);
    } catch (error) {
      console.error('[splitbook] could not read the calls before a sync:', error);
    }
    // Edits made from here on stay noted for the next run; those read now are this run's.
    const noted = editedSince.get(storeId);
    editedSince.delete(storeId);
    const report = await engine.run(storeId);
    const ok = report.outcome === 'ok' || report.outcome === 'partial';
    if (!ok && noted) for (const id of noted) note(storeId, id);
    if (!ok || was === null) return { report, changes: null };
    try {
      const changes = after(storeId, was);
      if (changes.news.length > 0 || changes.settled.length > 0) deps.onChanges(storeId, changes);
      return { report, changes };
    } catch (error) {
      console.error('[splitbook] could not compare the calls after a sync:', error);
      return { report, changes: null };
    }
  }

  function note(storeId: string, testId: string): void {
    let ids = editedSince.get(storeId);
    if (!ids) editedSince.set(storeId, (ids = new Set()));
    ids.add(testId);
  }

  return {
    // The engine is a plain object of closures (sync/run.ts): its other methods carry over as they are.
    engine: {
      ...engine,
      run: async (storeId: string) => (await runTracked(storeId)).report,
      runTracked,
    },
    /** The outbox of a store changed: note the tests it holds now, as the user's doing. */
    edited(storeId) {
      try {
        for (const testId of editedTests(storeId)) note(storeId, testId);
      } catch (error) {
        console.error('[splitbook] could not note the edited tests:', error);
      }
    },
  };
}
