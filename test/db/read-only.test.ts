// A data folder that cannot be written: Splitbook opens its cache read-only, says plainly that the
// folder cannot be written, keeps browsing working, and a sync ends with that same sentence.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { createMemorySecretStore } from '#core/secrets/index';
import { allTestRows, nextSyncReport, startCore, tempDir } from '../support/core';

const dir = tempDir();
const bin = tempDir('splitbook-node-');
afterEach(() => {
  dir.remove();
  bin.remove();
});

const NOBODY = 65534;
const canSwitchUser = typeof process.getuid === 'function' && process.getuid() === 0;

/** Whether "nobody" can reach this checkout (every folder above it searchable by others). */
function othersCanReach(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}
const reachable = othersCanReach(join(import.meta.dirname, '..', '..'));
// A checkout in a private folder (mktemp -d makes them 700) cannot be read by another user at all.
const cannotRun = !canSwitchUser
  ? 'it runs as user nobody, which needs root'
  : !reachable
    ? 'it runs as user nobody, who cannot read a checkout in a private folder'
    : null;

it('browses a read-only data folder and says it cannot be written (run as user nobody)', async (ctx) => {
  if (cannotRun !== null) ctx.skip(`Skipped: ${cannotRun}.`);
  const core = await startCore(dir.path, {
    secrets: createMemorySecretStore(),
    demo: { tests: 15, seed: 8 },
  });
  const demo = await core.services.stores.openDemo({});
  await nextSyncReport(core, demo.id);
  expect(await allTestRows(core, demo.id)).toHaveLength(15);
  await core.close();
  // Readable by everyone, writable by no one but root (and the child is not root).
  for (const name of readdirSync(dir.path)) chmodSync(join(dir.path, name), 0o555);
  chmodSync(dir.path, 0o555);

  // This Node may live in root's private folders: a copy that "nobody" may run.
  const node = join(bin.path, 'node');
  copyFileSync(process.execPath, node);
  chmodSync(node, 0o755);
  chmodSync(bin.path, 0o755);
  const child = spawn(
    node,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures/read-only-child.ts'), dir.path],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      uid: NOBODY,
      gid: NOBODY,
      env: { ...process.env, HOME: '/tmp' },
    },
  );
  let result: Record<string, unknown> | null = null;
  for await (const line of createInterface({ input: child.stdout })) result = JSON.parse(line);
  chmodSync(dir.path, 0o755);
  expect(result).toEqual({
    state: 'read-only',
    title: 'The data folder cannot be written',
    stores: 1,
    tests: 15,
    sync: 'error',
    syncTitle: 'The data folder cannot be written',
  });
}, 60_000);
