// The data folder is its owner's alone (issue 46, item 11), on real processes: the CLI and the browser host
// make a new folder 0700, and its files (the cache, the user's file, their -wal and -shm, the marks of
// running processes), and backups, 0600, even under a umask that would leave them open to everyone; files
// an older Splitbook left 0644 are made 0600. A process killed leaves its mark of running, which the
// next start of any host removes.
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cli, startApp, tempRoot, type RunningApp } from '../backup/support';

let root: ReturnType<typeof tempRoot>;
let umask = 0;
const apps: RunningApp[] = [];

beforeEach(() => {
  root = tempRoot('splitbook-modes-');
  // The children inherit it: nothing but Splitbook's own modes keeps the files private.
  umask = process.umask(0);
});
afterEach(async () => {
  process.umask(umask);
  for (const app of apps.splice(0)) await app.kill('SIGKILL');
  root.remove();
});

const mode = (path: string) => statSync(path).mode & 0o777;

/** Every entry of the folder with its mode, but the folders (and the lock files inside locks/). */
function fileModes(dir: string): Record<string, number> {
  return Object.fromEntries(
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [entry.name, mode(join(dir, entry.name))]),
  );
}

it('makes a new data folder 0700 and its files and backups 0600 under umask 0, and files left 0644 0600', async () => {
  const dir = join(root.path, 'new', 'Splitbook');
  const first = await cli(dir, ['stores']);
  expect(first.code, first.err).toBe(0);
  expect(mode(dir)).toBe(0o700);
  expect(fileModes(dir)).toEqual({ 'splitbook.db': 0o600, 'splitbook-user.db': 0o600 });

  // Open in the browser host: the write-ahead logs and a mark of running beside the files.
  const app = await startApp(dir, root.path);
  apps.push(app);
  const open = fileModes(dir);
  expect(Object.keys(open)).toEqual(
    expect.arrayContaining(['splitbook.db-wal', 'splitbook-user.db-wal']),
  );
  expect(Object.keys(open).some((name) => name.startsWith('.running-'))).toBe(true);
  for (const [name, bits] of Object.entries(open)) expect([name, bits]).toEqual([name, 0o600]);
  await app.kill('SIGTERM');

  const backup = join(root.path, 'mine.backup');
  const made = await cli(dir, ['backup', '--out', backup]);
  expect(made.code, made.err).toBe(0);
  expect(mode(backup)).toBe(0o600);
  const restored = join(root.path, 'restored');
  expect((await cli(restored, ['restore', backup])).code).toBe(0);
  expect(mode(restored)).toBe(0o700);
  for (const [name, bits] of Object.entries(fileModes(restored)))
    expect([name, bits]).toEqual([name, 0o600]);

  for (const name of ['splitbook.db', 'splitbook-user.db']) chmodSync(join(dir, name), 0o644);
  expect((await cli(dir, ['stores'])).code).toBe(0);
  expect(fileModes(dir)).toEqual({ 'splitbook.db': 0o600, 'splitbook-user.db': 0o600 });
}, 120_000);

it("removes a killed process's mark of running at the next start of the CLI", async () => {
  const dir = join(root.path, 'data');
  const app = await startApp(dir, root.path);
  const marks = () => readdirSync(dir).filter((name) => name.startsWith('.running-'));
  expect(marks()).toHaveLength(1);
  await app.kill('SIGKILL');
  expect(marks()).toHaveLength(1);
  const run = await cli(dir, ['stores']);
  expect(run.code, run.err).toBe(0);
  expect(marks()).toEqual([]);
}, 60_000);
