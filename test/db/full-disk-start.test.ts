// A full disk (issue 46, item 8), on a small real filesystem the test mounts (tmpfs, as root): with no
// space left Splitbook still starts, reads what is cached and says the disk is full; near full, a note or
// an edit that does not fit says "The disk is full" naming the user's own file, and a backup names its own
// file, never the raw "database or disk is full".
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestListInput } from '#shared/contract/index';
import type { Core } from '#core/types';
import { createMemorySecretStore } from '#core/secrets/index';
import { dispatch } from '../../src/main/hosts/common/dispatch';
import { startCore, syncStore, tempDir } from '../support/core';

const root = tempDir('splitbook-full-disk-');
const mount = join(root.path, 'disk');
let mounted = false;
let why = '';

beforeAll(() => {
  mkdirSync(mount);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', mount], { stdio: 'pipe' });
    mounted = true;
  } catch (error) {
    why = `cannot mount a tmpfs here (needs root): ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
});

afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mount]);
  root.remove();
});

const open = (dataDir: string) =>
  startCore(dataDir, { secrets: createMemorySecretStore(), demo: { tests: 60 } });

/** Writes zeros to `file` until the disk refuses; leaves `spare` bytes free by shortening it after. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOSPC')) throw error;
  } finally {
    closeSync(fd);
  }
}

describe('a full disk', () => {
  it('starts, reads what is cached and says the disk is full; near full, says which file did not fit', async (ctx) => {
    if (!mounted) return ctx.skip(why);
    const dataDir = join(mount, 'data');
    let core: Core = await open(dataDir);
    const demo = await core.services.stores.openDemo({});
    expect((await syncStore(core, demo.id)).outcome).toBe('ok');
    const [first, second] = (
      await core.services.tests.list(TestListInput.parse({ storeId: demo.id, limit: 5 }))
    ).rows;
    if (!first || !second) throw new Error('two tests needed');
    await core.close();

    // No space at all: it starts on what is there.
    const filler = join(mount, 'filler');
    fill(filler);
    core = await open(dataDir);
    try {
      const status = await core.services.app.cacheStatus({});
      expect(status.state).toBe('read-only');
      expect(status.problem?.title).toBe('The disk is full');
      expect(status.problem?.detail).toContain(dataDir);
      const [store] = await core.services.stores.list({});
      expect(store?.counts.tests).toBe(60);
      const note = await dispatch(core, 'notes.get', { storeId: demo.id, testId: first.id });
      expect(note.ok).toBe(true);
    } finally {
      await core.close();
    }

    // Near full: a little room, used up by the user's own writes; each refusal names what did not fit.
    rmSync(filler);
    fill(filler);
    execFileSync('truncate', ['-s', `-${512 * 1024}`, filler]);
    core = await open(dataDir);
    try {
      expect((await core.services.app.cacheStatus({})).state).toBe('ok');
      let refused = null;
      for (let i = 0; i < 200 && refused === null; i++) {
        const answer = await dispatch(core, 'notes.set', {
          storeId: demo.id,
          testId: i % 2 ? first.id : second.id,
          body: `${i} ${'n'.repeat(19_000)}`,
        });
        if (!answer.ok) refused = answer.problem;
      }
      expect(refused?.title).toBe('The disk is full');
      expect(refused?.detail).toContain('splitbook-user.db');
      expect(refused?.detail).not.toContain('cache');

      const backup = join(mount, 'data.backup');
      const answer = await core.data.backup(backup).then(
        () => null,
        (error: unknown) => error,
      );
      expect(answer).toMatchObject({
        problem: { title: 'The disk is full', detail: expect.stringContaining(backup) },
      });
    } finally {
      await core.close();
    }
  }, 120_000);
});
