// Background syncs: the app keeps every store current by itself — once the window has painted, on the
// schedule (global, or the store's own), when the connection returns and after the machine wakes —
// quietly and politely: a failing store backs off (full jitter, doubling up to the schedule's interval),
// a refused key stops the store's background syncs until the key changes, a store another process is
// syncing is skipped, and nothing is tried while offline. Time comes from the injected clock and timers.
// Every core keeps each store's state from every sync's end (the CLI's too), so `stores` shows it; only
// the app's hosts (`enabled`) start syncs.
import type { CoreEvent, SyncReport } from '#shared/contract/index';
import { MAX_READY_LISTED } from '#shared/contract/decisions';
import {
  backgroundSyncIntervalMs,
  DEFAULT_BACKGROUND_SYNC,
  type BackgroundSync,
} from '#shared/contract/settings';
import type { BackgroundStatus } from '#shared/contract/sync';
import { PROBLEM_TYPES } from '#shared/problem';
import { backoffDelay } from '../api/backoff';
import {
  BACKGROUND_IDLE,
  canWriteBackground,
  deleteBackgroundState,
  readBackgroundRow,
  writeBackgroundRow,
  type BackgroundRow,
} from '../db/user/background';
import { readSettings } from '../db/user/settings';
import type { Db, StoreRow } from '../db/types';
import type { RunChanges, Tracked } from '../decisions/changes';
import { hasSendable } from '../outbox';
import { isAnotherProcess, type SyncEngine } from './run';

/** setTimeout and clearTimeout, injected so tests drive time. */
export interface BackgroundTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's own timers, which never keep it alive on their own. */
export const SYSTEM_TIMERS: BackgroundTimers = {
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The first back-off step: a store that failed once is tried again within a minute or so. */
export const BACKOFF_BASE_MS = 60_000;
/** Full jitter can draw nearly nothing: a failing store is never tried again sooner than this. */
export const BACKOFF_FLOOR_MS = 10_000;
/**
 * The longest the scheduler sleeps before looking at the wall clock again: a timer does not count the
 * time a machine slept, so a store due during the sleep is synced within this after waking even where
 * no host says the machine woke (the browser host).
 */
export const MAX_TIMER_MS = 60_000;
/** A store another process is syncing is looked at again after this. */
export const HELD_RETRY_MS = 60_000;

export interface BackgroundSyncDeps {
  db: Db;
  engine: Tracked<SyncEngine>;
  /** The stores, in the user's order. */
  rows(): StoreRow[];
  clock: () => number;
  timers: BackgroundTimers;
  /** Draws the jitter of a back-off, 0..1. */
  random: () => number;
  emit(event: CoreEvent): void;
  /** Whether another process (the CLI, a second app) holds the store's sync lock right now. */
  heldElsewhere(storeId: string): boolean;
  /** Starts syncs by itself (the app's hosts); off, it only keeps each store's state (the CLI). */
  enabled: boolean;
  /** Where the host stood, when the core's parts are assembled again (a rebuilt cache). */
  initial?: BackgroundFlags;
}

export type BackgroundFlags = { windowReady: boolean; online: boolean };

export interface BackgroundSyncer {
  /** The window painted its first rows: the start's syncs may run. */
  windowReady(): void;
  /** The host's view of the network: offline, nothing is tried; back online, every store syncs. */
  connectivity(online: boolean): void;
  /** The machine woke from sleep: every store syncs once the network answers. */
  wake(): void;
  /** A sync ended, whoever started it: the store's back-off, refused key or schedule moves. */
  finished(report: SyncReport): void;
  /** The store's key was changed: a refusal no longer holds, and it syncs now. */
  keyChanged(storeId: string): void;
  /** The store's own schedule; null: the global setting. */
  setSchedule(storeId: string, schedule: BackgroundSync | null): void;
  /** The store was removed. */
  forget(storeId: string): void;
  status(store: StoreRow): BackgroundStatus;
  /** The settings or the stores changed: work out the next sync again. */
  replan(): void;
  flags(): BackgroundFlags;
  /** Until the core closes or is assembled again: no timer left behind. */
  stop(): void;
}

/** A refused key: the store said no to it (401, 403 on a read), or there is none at hand. */
function refusedKey(problem: SyncReport['problem']): boolean {
  return (
    problem?.type === PROBLEM_TYPES.unauthorized ||
    (problem?.type === PROBLEM_TYPES.forbidden && problem.status === 403)
  );
}

export function createBackgroundSync(deps: BackgroundSyncDeps): BackgroundSyncer {
  const { db, engine, clock, timers } = deps;
  let windowReady = deps.initial?.windowReady ?? false;
  let online = deps.initial?.online ?? true;
  let stopped = false;
  let timer: unknown = null;
  /** Stores to sync at the next look whatever their schedule says: the start, the connection back, a wake. */
  const dueNow = new Set<string>();
  /** Stores another process was syncing: not looked at again before this. */
  const heldUntil = new Map<string, number>();
  /** State kept in memory where the user's file cannot be written (a read-only data folder). */
  const memory = new Map<string, BackgroundRow>();
  const iso = (ms: number) => new Date(ms).toISOString();

  function stateOf(storeId: string): BackgroundRow {
    if (!canWriteBackground(db)) return memory.get(storeId) ?? { ...BACKGROUND_IDLE };
    return readBackgroundRow(db, storeId);
  }

  function save(storeId: string, row: BackgroundRow): void {
    if (!canWriteBackground(db)) {
      memory.set(storeId, row);
      return;
    }
    try {
      writeBackgroundRow(db, storeId, row, iso(clock()));
    } catch (error) {
      // A disk that filled up, say: the state lives on in memory for this session.
      console.error('[splitbook] could not save a store’s background sync state:', error);
      memory.set(storeId, row);
    }
  }

  function statusOf(store: StoreRow, global: BackgroundSync): BackgroundStatus {
    const state = stateOf(store.id);
    const schedule = state.schedule ?? global;
    const interval = backgroundSyncIntervalMs(schedule);
    const stoppedBy =
      state.refusedAt === null
        ? null
        : { reason: state.refusedReason ?? 'The API key was refused', at: state.refusedAt };
    const backoffUntil = state.failures > 0 ? state.retryAt : null;
    let nextAt: string | null = null;
    if (stoppedBy === null && interval !== null) {
      if (backoffUntil !== null) nextAt = backoffUntil;
      else if (store.lastFinishedAt !== null)
        nextAt = iso(Date.parse(store.lastFinishedAt) + interval);
      else nextAt = iso(clock());
    }
    return {
      schedule,
      own: state.schedule,
      nextAt,
      failures: state.failures,
      backoffUntil,
      stopped: stoppedBy,
    };
  }

  const globalSchedule = () => readSettings(db).backgroundSync;

  /** When the store is due (ms), or null when nothing is to be done for it on its own. */
  function dueAt(store: StoreRow, status: BackgroundStatus, now: number): number | null {
    if (status.stopped !== null) return null;
    const held = heldUntil.get(store.id) ?? Number.NEGATIVE_INFINITY;
    if (dueNow.has(store.id)) return Math.max(now, held);
    if (status.nextAt === null) return null;
    return Math.max(Date.parse(status.nextAt), held);
  }

  function plan(): void {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    if (!deps.enabled || stopped || !windowReady || !online) return;
    const now = clock();
    const global = globalSchedule();
    let next = Number.POSITIVE_INFINITY;
    for (const store of deps.rows()) {
      // A store syncing now is planned again when its run ends.
      if (engine.isRunning(store.id)) continue;
      const due = dueAt(store, statusOf(store, global), now);
      if (due !== null && due < next) next = due;
    }
    if (next === Number.POSITIVE_INFINITY) return;
    timer = timers.setTimeout(look, Math.min(Math.max(0, next - now), MAX_TIMER_MS));
  }

  function look(): void {
    timer = null;
    if (stopped || !windowReady || !online) return;
    try {
      startDue();
    } catch (error) {
      // The cache closed under the scheduler (a rebuild), say: the next look tries again.
      console.error('[splitbook] background sync could not look at the stores:', error);
    }
    plan();
  }

  function startDue(): void {
    const now = clock();
    const global = globalSchedule();
    const started: string[] = [];
    for (const store of deps.rows()) {
      const id = store.id;
      // Already syncing (the window, or this scheduler): skipped, never queued twice.
      if (engine.isRunning(id)) {
        dueNow.delete(id);
        continue;
      }
      const status = statusOf(store, global);
      const due = dueAt(store, status, now);
      if (due === null || due > now) continue;
      dueNow.delete(id);
      if (status.nextAt === null) {
        // "Only when I ask": the edits the user made still go out when the connection is back.
        if (hasSendable(db, id)) void engine.push(id).catch(logLost);
        continue;
      }
      if (deps.heldElsewhere(id)) {
        heldUntil.set(id, now + HELD_RETRY_MS);
        continue;
      }
      heldUntil.delete(id);
      started.push(id);
      engine.runTracked(id).then(({ changes }) => announce(id, changes), logLost);
    }
    if (started.length > 0)
      deps.emit({ name: 'sync.started', payload: { storeIds: started, background: true } });
  }

  /** Tells the user once which tests a background sync made ready for a call. */
  function announce(storeId: string, changes: RunChanges | null): void {
    if (stopped || changes === null || changes.news.length === 0) return;
    try {
      if (!readSettings(db).notifications) return;
      const store = deps.rows().find((row) => row.id === storeId);
      if (!store) return;
      deps.emit({
        name: 'decisions.ready',
        payload: {
          storeId,
          storeName: store.name,
          count: changes.news.length,
          tests: changes.news.slice(0, MAX_READY_LISTED).map((change) => ({
            testId: change.testId,
            title: change.title,
            call: change.call,
            words: change.words,
          })),
        },
      });
    } catch (error) {
      console.error('[splitbook] could not announce the calls a sync changed:', error);
    }
  }

  /** The start, the connection back, a wake: every store once, another process's hold looked at afresh. */
  function everyStore(): void {
    heldUntil.clear();
    for (const store of deps.rows()) dueNow.add(store.id);
  }

  return {
    windowReady() {
      if (windowReady) return;
      windowReady = true;
      everyStore();
      plan();
    },
    connectivity(next) {
      const back = next && !online;
      online = next;
      if (back) everyStore();
      plan();
    },
    wake() {
      everyStore();
      plan();
    },
    finished(report) {
      const { storeId, outcome, problem } = report;
      if (outcome === 'cancelled' || isAnotherProcess(problem)) {
        plan();
        return;
      }
      // A run that ended (whoever started it: setKey's, the window's, the CLI's) did what a pending
      // "sync now" would do; keeping the mark would sync the store a second time.
      dueNow.delete(storeId);
      const state = stateOf(storeId);
      if (outcome === 'ok' || outcome === 'partial') {
        // A store that answered has a working key and needs no back-off.
        if (state.failures > 0 || state.refusedAt !== null)
          save(storeId, {
            ...state,
            failures: 0,
            retryAt: null,
            refusedAt: null,
            refusedReason: null,
          });
      } else if (refusedKey(problem)) {
        save(storeId, {
          ...state,
          refusedAt: iso(clock()),
          refusedReason: problem?.title ?? 'The API key was refused',
        });
      } else if (outcome === 'offline' && !online) {
        // The machine is offline, not the store: the connection's return syncs it.
      } else {
        const failures = state.failures + 1;
        const cap =
          backgroundSyncIntervalMs(state.schedule ?? globalSchedule()) ??
          backgroundSyncIntervalMs(DEFAULT_BACKGROUND_SYNC) ??
          BACKOFF_BASE_MS;
        const wait = Math.max(
          BACKOFF_FLOOR_MS,
          backoffDelay(failures - 1, cap, deps.random, BACKOFF_BASE_MS),
        );
        save(storeId, { ...state, failures, retryAt: iso(clock() + wait) });
      }
      plan();
    },
    keyChanged(storeId) {
      const state = stateOf(storeId);
      save(storeId, { ...state, failures: 0, retryAt: null, refusedAt: null, refusedReason: null });
      dueNow.add(storeId);
      plan();
    },
    setSchedule(storeId, schedule) {
      save(storeId, { ...stateOf(storeId), schedule });
      plan();
    },
    forget(storeId) {
      memory.delete(storeId);
      dueNow.delete(storeId);
      heldUntil.delete(storeId);
      try {
        deleteBackgroundState(db, storeId);
      } catch (error) {
        console.error('[splitbook] could not forget a removed store’s background state:', error);
      }
      plan();
    },
    status: (store) => statusOf(store, globalSchedule()),
    replan: plan,
    flags: () => ({ windowReady, online }),
    stop() {
      stopped = true;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
    },
  };
}

function logLost(error: unknown): void {
  console.error('[splitbook] a background sync ended without a report:', error);
}
