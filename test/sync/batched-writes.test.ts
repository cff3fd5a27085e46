// The connection's one write queue (sync/pull/batched-writes.ts), on a real SQLite file: what every
// run queued in one turn is one commit; one failing write loses only itself; a failed commit fails all.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  WRITES_PER_COMMIT,
  writeQueueOf,
  writeTurn,
  type QueuedWrite,
} from '#core/sync/pull/batched-writes';
import type { Db } from '#core/db/types';
import { tempDir } from '../db/fixtures';

let db: Db;

afterEach(() => {
  if (db?.open) db.close();
});

function open(): Db {
  db = new Database(join(tempDir(), 'writes.db'));
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE parents (id INTEGER PRIMARY KEY);
    CREATE TABLE rows (id INTEGER PRIMARY KEY, run TEXT NOT NULL,
                       parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
    INSERT INTO parents (id) VALUES (1);`);
  db.pragma('foreign_keys = ON');
  return db;
}

/**
 * Counts the commits on the connection: better-sqlite3 has no commit hook, so each outermost
 * transaction (where a commit happens) is counted by wrapping db.transaction.
 */
function commitsOf(db: Db): () => number {
  let commits = 0;
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: never[]) => unknown) => {
    const wrapped = transaction(fn);
    // Each way of beginning it (the app's code begins every transaction .immediate()).
    const counted =
      (variant: (...args: never[]) => unknown) =>
      (...args: never[]) => {
        const top = !db.inTransaction;
        const result = variant(...args);
        if (top) commits += 1;
        return result;
      };
    return Object.assign(counted(wrapped), {
      deferred: counted(wrapped.deferred),
      immediate: counted(wrapped.immediate),
      exclusive: counted(wrapped.exclusive),
    }) as typeof wrapped;
  }) as typeof db.transaction;
  return () => commits;
}

type Outcome = { written: number; failed: unknown[] };

function queued(db: Db, run: string, id: number, outcome: Outcome, parent = 1): QueuedWrite {
  return {
    write: () => {
      db.prepare(`INSERT INTO rows (id, run, parent) VALUES (?, ?, ?)`).run(id, run, parent);
    },
    written: () => (outcome.written += 1),
    failed: (error) => outcome.failed.push(error),
  };
}

const nextTurn = () => new Promise((done) => setImmediate(done));
const rows = (db: Db) =>
  db.prepare(`SELECT id, run FROM rows ORDER BY id`).all() as { id: number; run: string }[];

describe('the write queue of a connection', () => {
  it('is one queue per connection', () => {
    const db = open();
    expect(writeQueueOf(db)).toBe(writeQueueOf(db));
  });

  it('commits what several runs queued in one turn as one transaction, then tells each run', async () => {
    const db = open();
    const commits = commitsOf(db);
    const a: Outcome = { written: 0, failed: [] };
    const b: Outcome = { written: 0, failed: [] };
    const queue = writeQueueOf(db);
    for (let i = 1; i <= 5; i++) {
      queue.add(queued(db, 'a', i, a));
      queue.add(queued(db, 'b', 100 + i, b));
    }
    expect(rows(db)).toEqual([]); // nothing before the thread is free
    await nextTurn();
    expect(rows(db)).toHaveLength(10);
    expect(commits()).toBe(1);
    expect(a).toEqual({ written: 5, failed: [] });
    expect(b).toEqual({ written: 5, failed: [] });
  });

  it('commits at once when a commit is full, and the rest when the thread is free', async () => {
    const db = open();
    const commits = commitsOf(db);
    const run: Outcome = { written: 0, failed: [] };
    const queue = writeQueueOf(db);
    for (let i = 1; i <= WRITES_PER_COMMIT + 3; i++) queue.add(queued(db, 'a', i, run));
    expect(rows(db)).toHaveLength(WRITES_PER_COMMIT);
    expect(commits()).toBe(1);
    await nextTurn();
    expect(rows(db)).toHaveLength(WRITES_PER_COMMIT + 3);
    expect(commits()).toBe(2);
    expect(run.written).toBe(WRITES_PER_COMMIT + 3);
  });

  it('loses only a write that fails (its own savepoint), and tells only its run', async () => {
    const db = open();
    const a: Outcome = { written: 0, failed: [] };
    const b: Outcome = { written: 0, failed: [] };
    const queue = writeQueueOf(db);
    queue.add(queued(db, 'a', 1, a));
    // Half a write: a row, then a failure. The row must not stay.
    queue.add({
      write: () => {
        db.prepare(`INSERT INTO rows (id, run) VALUES (2, 'b')`).run();
        db.prepare(`INSERT INTO rows (id, run) VALUES (1, 'b')`).run(); // the id is taken
      },
      written: () => (b.written += 1),
      failed: (error) => b.failed.push(error),
    });
    queue.add(queued(db, 'a', 3, a));
    queue.flush();
    expect(rows(db)).toEqual([
      { id: 1, run: 'a' },
      { id: 3, run: 'a' },
    ]);
    expect(a).toEqual({ written: 2, failed: [] });
    expect(b.written).toBe(0);
    expect(String(b.failed[0])).toMatch(/UNIQUE constraint failed/);
  });

  it('fails every write of a commit that fails, and keeps none of them', () => {
    const db = open();
    const run: Outcome = { written: 0, failed: [] };
    const queue = writeQueueOf(db);
    queue.add(queued(db, 'a', 1, run));
    // A deferred foreign key is checked at the commit: the whole transaction is refused.
    queue.add(queued(db, 'a', 2, run, 99));
    queue.flush();
    expect(rows(db)).toEqual([]);
    expect(run.written).toBe(0);
    expect(run.failed).toHaveLength(2);
    expect(String(run.failed[0])).toMatch(/FOREIGN KEY constraint failed/);
    // The connection is usable after: the next commit goes through.
    queue.add(queued(db, 'a', 3, run));
    queue.flush();
    expect(rows(db)).toEqual([{ id: 3, run: 'a' }]);
    expect(run.written).toBe(1);
  });

  it('fails every write with the cause when SQLite rolls the whole transaction back (a full disk)', () => {
    const db = open();
    db.exec(`CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)`);
    const pages = Number(db.pragma('page_count', { simple: true }));
    // SQLite's cap on the file's size: past it, a write fails with SQLITE_FULL as on a full disk.
    db.pragma(`max_page_count = ${pages + 8}`);
    const run: Outcome = { written: 0, failed: [] };
    const queue = writeQueueOf(db);
    for (let id = 1; id <= 4; id++) {
      queue.add({
        write: () => {
          db.prepare(`INSERT INTO blobs (id, body) VALUES (?, zeroblob(12000))`).run(id);
        },
        written: () => (run.written += 1),
        failed: (error) => run.failed.push(error),
      });
    }
    queue.flush();
    expect(run.written).toBe(0);
    expect(run.failed).toHaveLength(4);
    for (const error of run.failed) expect(String(error)).toMatch(/database or disk is full/);
    expect(db.prepare(`SELECT count(*) AS n FROM blobs`).get()).toEqual({ n: 0 });
    // Space again: the same writes go through.
    db.pragma('max_page_count = 1073741823');
    queue.add(queued(db, 'a', 1, run));
    queue.flush();
    expect(run.written).toBe(1);
  });

  it('gives large writes (listing parts) one turn of the event loop each, in the order they asked', async () => {
    const db = open();
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const turns: [string, number][] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((label) => writeTurn(db).then(() => turns.push([label, turn]))),
    );
    ticking = false;
    expect(turns.map(([label]) => label)).toEqual(['a', 'b', 'c']);
    const [a = 0, b = 0, c = 0] = turns.map(([, at]) => at);
    // Each in a later turn than the one before: what else waits (answers, requests) runs between.
    expect(b).toBeGreaterThan(a);
    expect(c).toBeGreaterThan(b);
  });
});
