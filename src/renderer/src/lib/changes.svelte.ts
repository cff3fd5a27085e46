// Which data changed, per resource and store: the events bump it here (settled), and each view reads the
// version of what it shows, so an edit in one store or one test's results reload only the views showing them.
import { changesOf, type AppEvent, type DataChange, type Resource } from '#shared/contract/index';
import { getBridge } from './bridge';

/** A burst of events (a sync writing page after page) makes one refresh. */
const SETTLE_MS = 250;
/** While a sync runs, what it has written so far shows at this pace. */
const WHILE_SYNCING_MS = 2000;

/** What a view shows: one store (null: all stores), and within it one test or all of them. */
export type Scope = { storeId: string | null; testId?: string | null };

// Counter keys: `res` any change; `res@*` a change of every store; `res@S` any change in store S;
// `res@S#` a change of store S as a whole; `res@S#T` a change of test T of store S.
const anyKey = (r: Resource) => r;
const everyStoreKey = (r: Resource) => `${r}@*`;
const storeKey = (r: Resource, storeId: string) => `${r}@${storeId}`;
const wholeStoreKey = (r: Resource, storeId: string) => `${r}@${storeId}#`;
const testKey = (r: Resource, storeId: string, testId: string) => `${r}@${storeId}#${testId}`;

/** The counters one change moves. */
function keysOf(change: DataChange): string[] {
  return change.resources.flatMap((r) => {
    if (change.storeId === null) return [anyKey(r), everyStoreKey(r)];
    const ofStore = [anyKey(r), storeKey(r, change.storeId)];
    return change.testId === undefined
      ? [...ofStore, wholeStoreKey(r, change.storeId)]
      : [...ofStore, testKey(r, change.storeId, change.testId)];
  });
}

export class Changes {
  /** Every counter, replaced as a whole at each settled refresh. */
  #counts = $state.raw<Readonly<Record<string, number>>>({});
  /**
   * Whether the last refresh came only from a running sync's progress: views may then reload just what
   * is on screen (the test list does); a sync's end or any other change asks for a whole refresh.
   */
  whileSyncing = false;
  #pending: DataChange[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #last = Number.NEGATIVE_INFINITY;
  #wholeWanted = false;

  /** The version of `resources` in `scope`: it moves when one of them changed there (settled). */
  versionOf(resources: readonly Resource[], scope: Scope): number {
    const counts = this.#counts;
    const { storeId, testId } = scope;
    let sum = 0;
    for (const r of resources) {
      if (storeId === null) {
        sum += counts[anyKey(r)] ?? 0;
        continue;
      }
      sum += counts[everyStoreKey(r)] ?? 0;
      if (testId === undefined || testId === null) sum += counts[storeKey(r, storeId)] ?? 0;
      else
        sum +=
          (counts[wholeStoreKey(r, storeId)] ?? 0) + (counts[testKey(r, storeId, testId)] ?? 0);
    }
    return sum;
  }

  /** Soon: `resources` of a store (null: every store), or of one of its tests, changed. */
  bump(resources: readonly Resource[], storeId: string | null, testId?: string) {
    this.#pending.push(
      testId === undefined ? { resources, storeId } : { resources, storeId, testId },
    );
    this.#wholeWanted = true;
    this.#schedule();
  }

  /**
   * What an event says changed (the core's, or the same fact known here first). Says whether a refresh
   * was asked for: a running sync's progress asks at most every WHILE_SYNCING_MS.
   */
  record(event: AppEvent): boolean {
    const change = changesOf(event);
    if (!change) return false;
    if (event.name === 'sync.progress') return this.#whileSyncing(change);
    this.bump(change.resources, change.storeId, change.testId);
    return true;
  }

  #whileSyncing(change: DataChange): boolean {
    // Kept either way: progress held back now shows with the next refresh, whichever store asks for it.
    this.#pending.push(change);
    if (this.#timer || Date.now() - this.#last < WHILE_SYNCING_MS) return false;
    this.#schedule();
    return true;
  }

  #schedule() {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#flush(), SETTLE_MS);
  }

  #flush() {
    this.#timer = null;
    this.#last = Date.now();
    this.whileSyncing = !this.#wholeWanted;
    this.#wholeWanted = false;
    const next = { ...this.#counts };
    // Each counter moves once per refresh, however many events of the burst named it.
    const moved: Record<string, true> = {};
    for (const key of this.#pending.flatMap(keysOf)) moved[key] = true;
    for (const key of Object.keys(moved)) next[key] = (next[key] ?? 0) + 1;
    this.#pending = [];
    this.#counts = next;
  }
}

export const changes = new Changes();

/**
 * Subscribes `target` to the host's events that change data; returns the unsubscribe. `sync.progress`
 * is recorded by `followSyncEvents` (sync/sync.svelte.ts), which also refreshes the store list when
 * the progress asked for a refresh.
 */
export function followChanges(target: Changes = changes): () => void {
  const bridge = getBridge();
  const offs = [
    bridge.on('sync.finished', (payload) => target.record({ name: 'sync.finished', payload })),
    bridge.on('stores.changed', (payload) => target.record({ name: 'stores.changed', payload })),
    bridge.on('edits.changed', (payload) => target.record({ name: 'edits.changed', payload })),
    bridge.on('settings.changed', (payload) =>
      target.record({ name: 'settings.changed', payload }),
    ),
    bridge.on('results.changed', (payload) => target.record({ name: 'results.changed', payload })),
    bridge.on('decisions.changed', (payload) =>
      target.record({ name: 'decisions.changed', payload }),
    ),
    bridge.on('team.changed', (payload) => target.record({ name: 'team.changed', payload })),
  ];
  return () => offs.forEach((off) => off());
}
