// Another process's writes to the team layer (the CLI's `note`, `comment`, `owner` beside a running window): a cheap poll of the user file's last update row, the new rows applied to the window's documents.
import type { Db } from '../db/types';
import { lastUpdateId, updatesAfter } from '../db/user/team';

/** How often a window's core looks for updates another process wrote. */
export const TEAM_POLL_MS = 1000;

export interface TeamWatch {
  /** Looks once now (the poll's step; tests call it to skip the wait). */
  check(): void;
  stop(): void;
}

/**
 * Every `every` ms reads the last row id of `team_updates` (one indexed read) and hands the rows past
 * the last one seen to `apply`. The rows this process wrote come back too; applying an update a
 * document holds already changes nothing, so they cost a read and no event.
 */
export function watchTeamUpdates(
  db: Db,
  apply: (teamStoreId: string, update: Uint8Array) => void,
  every = TEAM_POLL_MS,
): TeamWatch {
  const last = () => {
    try {
      return lastUpdateId(db);
    } catch {
      // A user file without the team tables (an older one opened read-only): nothing to watch.
      return null;
    }
  };
  let seen = last();
  const check = () => {
    if (seen === null) return;
    const now = last();
    if (now === null || now <= seen) return;
    const after = seen;
    seen = now;
    for (const row of updatesAfter(db, after)) {
      if (row.id > now) break;
      apply(row.teamStoreId, row.data);
    }
  };
  const timer = setInterval(check, every);
  timer.unref?.();
  return { check, stop: () => clearInterval(timer) };
}
