// The cache's health off the path to the first painted row: SQLite's quick_check on a thread of its own,
// with a read-only connection of its own, once the window shows data; before it (on open, as always)
// only after a process that held the folder ended without closing (a crash, a kill, a power cut).
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export type IntegrityResult = { ok: true } | { ok: false; detail: string };

/**
 * The checker, as CommonJS source for an eval'd worker: it needs nothing but the SQLite driver, which
 * is found (from this module's location) and handed to it, so it runs the same under tsx and in the app.
 */
const CHECKER = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 5000 });
  const result = db.pragma('quick_check(1)', { simple: true });
  parentPort.postMessage(result === 'ok' ? { ok: true } : { ok: false, detail: 'quick_check: ' + String(result) });
} catch (error) {
  const code = error && error.code ? String(error.code) : '';
  parentPort.postMessage(
    /CORRUPT|NOTADB/.test(code) ? { ok: false, detail: String(error.message || error) } : { ok: true, skipped: String(error.message || error) },
  );
} finally {
  if (db) db.close();
}
`;

/** quick_check of `file` on a worker thread; damage is reported, any other failure counts as no finding. */
export function checkIntegrityInBackground(file: string): Promise<IntegrityResult> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve) => {
    const worker = new Worker(CHECKER, { eval: true, workerData: { file, driver } });
    worker.once('message', (message: { ok: boolean; detail?: string }) => {
      resolve(
        message.ok ? { ok: true } : { ok: false, detail: message.detail ?? 'quick_check failed' },
      );
    });
    worker.once('error', () => resolve({ ok: true }));
    worker.once('exit', () => resolve({ ok: true }));
    // The check never keeps a closing process alive.
    worker.unref();
  });
}

/** A file per running process in the data folder; one left behind by a dead process means it did not close. */
const MARKER_PREFIX = '.running-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a process that used this data folder ended without closing (its marker outlived it). Stale
 * markers are removed. False when the folder cannot be read.
 */
export function endedUncleanly(dataDir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return false;
  }
  let unclean = false;
  for (const name of names) {
    if (!name.startsWith(MARKER_PREFIX)) continue;
    const pid = Number(name.slice(MARKER_PREFIX.length).split('.')[0]);
    // This process's own markers are of cores still open here; another live process's are its own.
    if (Number.isInteger(pid) && (pid === process.pid || alive(pid))) continue;
    unclean = true;
    rmSync(join(dataDir, name), { force: true });
  }
  return unclean;
}

/** Marks this process as using the folder; the returned function removes the mark at a clean close. */
export function markRunning(dataDir: string): () => void {
  const file = join(dataDir, `${MARKER_PREFIX}${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(file, '', { flag: 'wx', mode: 0o600 });
  } catch {
    // A read-only folder: nothing to mark, nothing is written there anyway.
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}
