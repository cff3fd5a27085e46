// Two processes on one data folder never sync one store at once: the lock is SQLite's write lock,
// which the OS grants to one holder and drops when that holder dies.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { createStoreLocks, lockFile } from '#core/sync/store-lock';
import { tempDir } from '../support/core';

const dir = tempDir();
afterEach(() => dir.remove());

const CHILD = join(import.meta.dirname, 'fixtures/lock-child.ts');

function child(storeId: string, startAt: number, mode = '') {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, dir.path, storeId, String(startAt), mode],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const answer = new Promise<string>((resolve) => {
    const lines = createInterface({ input: proc.stdout });
    lines.once('line', resolve);
    proc.once('exit', () => resolve('exited'));
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, answer, exited };
}

it('lets one holder at a time take a store, and frees it on release', () => {
  const a = createStoreLocks(dir.path);
  const b = createStoreLocks(dir.path);
  const held = a('store-1');
  expect(held).not.toBeNull();
  expect(b('store-1')).toBeNull();
  const other = b('store-2');
  expect(other).not.toBeNull();
  held?.release();
  held?.release(); // twice is harmless
  const again = b('store-1');
  expect(again).not.toBeNull();
  again?.release();
  other?.release();
});

it('gives the lock to exactly one of 40 processes racing for a lock whose holder was killed', async () => {
  // A holder killed while holding: the old PID file made every racer try the stale-lock takeover.
  const killed = child('store-1', 0, 'die');
  expect(await killed.answer).toBe('won');
  await killed.exited;
  const startAt = Date.now() + 6000;
  const children = Array.from({ length: 40 }, () => child('store-1', startAt));
  const answers = await Promise.all(children.map((c) => c.answer));
  for (const c of children) c.proc.stdin.end();
  await Promise.all(children.map((c) => c.exited));
  expect(answers.filter((a) => a === 'won')).toHaveLength(1);
  expect(answers.filter((a) => a === 'lost')).toHaveLength(39);
}, 60_000);

it('is free again as soon as a holder is killed, whatever file it left behind', async () => {
  const killed = child('store-1', 0, 'die');
  expect(await killed.answer).toBe('won');
  await killed.exited;
  const lock = createStoreLocks(dir.path)('store-1');
  expect(lock).not.toBeNull();
  lock?.release();
});

it("is not blocked by a leftover file naming a live PID (the old format's failure)", () => {
  const locks = createStoreLocks(dir.path);
  locks('store-1')?.release(); // creates the folder
  writeFileSync(join(dir.path, 'locks', 'store-1.lock'), '1');
  writeFileSync(lockFile(dir.path, 'store-1'), '');
  const lock = locks('store-1');
  expect(lock).not.toBeNull();
  lock?.release();
});
