// The writes of every run syncing on one connection, committed together. Twenty stores syncing at once
// each fetch a few results a second; written a store at a time, nearly every result was a commit of
// its own, and each commit rewrote the index pages that all tests' rows share. One queue per
// connection gathers what every run fetched while the thread was busy and commits it as one
// transaction, each write in a savepoint of its own so that one failing loses only itself.
import type { Db } from '../../db/types';

/** The most writes one commit holds; more wait for the next. */
export const WRITES_PER_COMMIT = 32;

/** A write queued by a run: `write` runs inside the shared transaction; exactly one of the others follows. */
export interface QueuedWrite {
  write(): void;
  /** After the commit that held it. */
  written(): void;
  /** Its savepoint, or the whole commit, failed: nothing of it was written. */
  failed(error: unknown): void;
}

export interface WriteQueue {
  /** Queues a write for the next commit: when the thread is next free, or at once when the queue is full. */
  add(write: QueuedWrite): void;
  /** Commits everything queued now (a run waits for its own writes this way before it ends). */
  flush(): void;
}

const queues = new WeakMap<Db, WriteQueue>();

/** The one write queue of a connection (every run of the sync thread shares the thread's). */
export function writeQueueOf(db: Db): WriteQueue {
  let queue = queues.get(db);
  if (!queue) {
    queue = createWriteQueue(db);
    queues.set(db, queue);
  }
  return queue;
}

function createWriteQueue(db: Db): WriteQueue {
  let waiting: QueuedWrite[] = [];
  let scheduled: NodeJS.Immediate | null = null;

  function commit(batch: readonly QueuedWrite[]): void {
    const failures = new Map<QueuedWrite, unknown>();
    try {
      db.transaction(() => {
        for (const item of batch) {
          try {
            db.transaction(() => item.write()).immediate();
          } catch (error) {
            // SQLite rolls the whole transaction back on some errors (a full disk, an I/O error):
            // then nothing of the batch stands, and every write fails with that cause.
            if (!db.inTransaction) throw error;
            failures.set(item, error);
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of batch) item.failed(error);
      return;
    }
    for (const item of batch) {
      if (failures.has(item)) item.failed(failures.get(item));
      else item.written();
    }
  }

  function flush(): void {
    if (scheduled !== null) clearImmediate(scheduled);
    scheduled = null;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, WRITES_PER_COMMIT);
      waiting = waiting.slice(WRITES_PER_COMMIT);
      commit(batch);
    }
  }

  return {
    add(write) {
      waiting.push(write);
      if (waiting.length >= WRITES_PER_COMMIT) flush();
      else scheduled ??= setImmediate(flush);
    },
    flush,
  };
}

const turns = new WeakMap<Db, { waiting: (() => void)[]; next(): void }>();

/**
 * Waits for this connection's next turn for a large write (a part of a listing page: 25 tests, about
 * 15 ms). One such write goes per turn of the event loop, so the requests and answers of every run on
 * the thread go on between them. Twenty listings that arrive together were written back to back
 * before: seconds in which no store sent a request and their rate limits went unused.
 */
export function writeTurn(db: Db): Promise<void> {
  let turn = turns.get(db);
  if (!turn) {
    const waiting: (() => void)[] = [];
    const next = (): void => {
      waiting.shift()?.();
      if (waiting.length > 0) setImmediate(next);
    };
    turn = { waiting, next };
    turns.set(db, turn);
  }
  const { waiting, next } = turn;
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(next);
  });
}
