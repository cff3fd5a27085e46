// Stores changed by another process (the CLI's add-store beside the open window): the cache's
// data_version moves when another connection commits, and only then are the stores compared, so a
// poll costs one pragma; a difference is told as stores.changed, as the services tell their own.
import type { CoreEvent } from '#shared/contract/index';
import { storesFingerprint } from '../db/cache/stores';
import type { Db } from '../db/types';

function dataVersion(db: Db): number {
  return Number(db.pragma('main.data_version', { simple: true }));
}

/**
 * Polls every `intervalMs` (the process's timer, never keeping it alive); `current` gives the cache's
 * connection of the moment (a rebuilt cache is a new one). Returns the stop.
 */
export function watchStores(
  current: () => Db,
  emit: (event: CoreEvent) => void,
  intervalMs: number,
): () => void {
  let db = current();
  let version = dataVersion(db);
  let seen = storesFingerprint(db);
  let failing = false;
  const timer = setInterval(() => {
    try {
      const now = current();
      const moved = now !== db || dataVersion(now) !== version;
      if (!moved) return;
      db = now;
      version = dataVersion(now);
      const print = storesFingerprint(now);
      failing = false;
      if (print === seen) return;
      seen = print;
      emit({ name: 'stores.changed', payload: {} });
    } catch (error) {
      // A cache closed for a rebuild or a restore: the next tick reads the new one. Said once.
      if (!failing)
        console.error('[splitbook] could not look for stores changed elsewhere:', error);
      failing = true;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
