// Backup test support: the app running in a process of its own (the browser host, a real Splitbook over
// its loopback bridge), the CLI as a user runs it, and what a data folder holds, read straight from SQLite.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { once } from 'node:events';
import Database from 'better-sqlite3';
import { CALL_PATH, TOKEN_HEADER, TOKEN_PARAM } from '#shared/http-bridge';
import { runTsx, waitForLine } from '../hosts/support/spawn';
import { realKeyring } from '../support/core';

export { realKeyring };

const CLI = 'src/main/hosts/cli/main.ts';
const BROWSER_HOST = 'src/main/hosts/browser/main.ts';

/** The environment the child processes run in: the private keyring when the suite has one, else none. */
export function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['SPLITBOOK_API_KEY'];
  if (!realKeyring) delete env['DBUS_SESSION_BUS_ADDRESS'];
  return env;
}

export async function cli(dataDir: string, args: string[], env: NodeJS.ProcessEnv = childEnv()) {
  const run = await runTsx(CLI, ['--data-dir', dataDir, ...args], { env });
  return { code: run.code, out: run.stdout, err: run.stderr };
}

export interface RunningApp {
  url: URL;
  dataDir: string;
  /** A bridge call; throws with the problem when the envelope is not ok. */
  call<T = unknown>(channel: string, input: unknown): Promise<T>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The browser host on `dataDir` (no page open, so no background sync starts by itself). */
export async function startApp(dataDir: string, staticDir: string): Promise<RunningApp> {
  // Node itself runs the host (tsx as a loader, not tsx's launcher, which would leave the app running
  // in a grandchild when SIGKILL ends the launcher).
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', BROWSER_HOST, '--data-dir', dataDir, '--static-dir', staticDir],
    { env: childEnv(), stdio: 'pipe' },
  );
  const [, printed] = await waitForLine(child, /Splitbook is running at (\S+)\n/);
  const url = new URL(printed ?? '');
  const token = url.searchParams.get(TOKEN_PARAM) ?? '';
  let exited = false;
  child.on('exit', () => (exited = true));
  return {
    url,
    dataDir,
    async call<T>(channel: string, input: unknown): Promise<T> {
      const response = await fetch(new URL(`${CALL_PATH}/${channel}`, url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
        body: JSON.stringify(input),
      });
      const envelope = (await response.json()) as
        { ok: true; data: T } | { ok: false; problem: { title: string; detail: string } };
      if (!envelope.ok)
        throw new Error(`${channel}: ${envelope.problem.title}: ${envelope.problem.detail}`);
      return envelope.data;
    },
    async kill(signal) {
      if (exited) return;
      const gone = once(child, 'exit');
      child.kill(signal);
      await gone;
    },
  };
}

export function tempRoot(prefix: string) {
  const path = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(path, 'index.html'), '<!doctype html><title>Splitbook</title>');
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Every row of every table of a SQLite file, but the tables named in `skip`: what it holds, comparable. */
export function tableRows(file: string, skip: readonly string[] = []): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = (
      db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
        .all() as { name: string }[]
    )
      .map((t) => t.name)
      .filter((name) => !skip.includes(name))
      .sort();
    return Object.fromEntries(
      tables.map((name) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all()]),
    );
  } finally {
    db.close();
  }
}

/** SQLite's full integrity check of a file: 'ok' or what it found. */
export function integrity(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

/** The folder's own entries (not the marks of running processes or the lock files). */
export function folderNames(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.running-') && name !== 'locks')
    .sort();
}

/** What a data folder holds: its entries and every row of its two files. Equal means nothing changed. */
export function folderContent(dir: string) {
  return {
    names: folderNames(dir),
    cache: tableRows(join(dir, 'splitbook.db')),
    user: tableRows(join(dir, 'splitbook-user.db')),
  };
}

export const exists = existsSync;
