// Two processes on one data folder never sync one store at once; a dead holder's lock is taken over.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createStoreLocks } from '../../src/main/core/sync/store-lock';
import { tempDir } from '../support/core';

const dir = tempDir();
afterEach(() => dir.remove());

it('lets one holder at a time take a store, and frees it on release', () => {
  const mine = createStoreLocks(dir.path);
  const other = createStoreLocks(dir.path, process.ppid); // another live process
  const held = mine('store-1');
  expect(held).not.toBeNull();
  expect(other('store-1')).toBeNull();
  expect(other('store-2')).not.toBeNull();
  held?.release();
  expect(other('store-1')).not.toBeNull();
});

it('takes over a lock left by a process that was killed', () => {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  const locks = createStoreLocks(dir.path);
  writeFileSync(join(dir.path, 'locks', 'store-1.lock'), dead.stdout);
  expect(locks('store-1')).not.toBeNull();
});
