// The CLI run by its full path from a folder that is not the project's: the sync thread finds tsx and
// its worker from its own location, not from the working directory (issue 23, item 4).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const TSX = join(REPO, 'node_modules/.bin/tsx');
const ENTRY = join(REPO, 'src/main/hosts/cli/main.ts');
const elsewhere = mkdtempSync(join(tmpdir(), 'splitbook-elsewhere-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

/** The CLI as a scheduled job starts it: tsx by its path, the entry by its path, cwd anywhere. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(TSX, [ENTRY, '--data-dir', join(elsewhere, 'data'), ...args], {
    cwd: elsewhere,
    env: { ...process.env, SPLITBOOK_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

it('syncs the demo store when started from another folder', async () => {
  const added = await cli(['add-demo']);
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);

  const sync = await cli(['sync', '--all']);
  expect(sync.stderr).not.toContain('Cannot find package');
  expect(sync.stdout).toMatch(/^Demo store: ok \(\d+ tests, /m);
  expect(sync.code).toBe(0);
}, 60_000);
