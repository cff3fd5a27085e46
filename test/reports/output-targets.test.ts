// Where `--out` may point (issue 46, item 5): a report, an export or a backup never turns a device, a pipe
// or a link into a regular file. A character device or a FIFO is written straight (a report or export
// streams to it; /dev/full says the disk is full), a link is followed to its file and stays a link, and a
// backup (an SQLite file) refuses anything but a file, as do all three for a folder, a socket or a missing
// link target. Real files, a real FIFO and socket, and the CLI in this process on a synced demo store.
// The devices are the null and full devices through nodes of the test's own (mknod, as root): a regression
// that replaced its target would replace those, never the system's /dev/null.
import { execFileSync } from 'node:child_process';
import { createReadStream, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { createMemorySecretStore } from '#core/secrets/index';
import { readBackup } from '#core/backup/backup-file';
import { runCli } from '../../src/main/hosts/cli/run';
import { startCore, syncStore, tempDir } from '../support/core';

const dir = tempDir('splitbook-out-');
const data = join(dir.path, 'data');
let core: Core | null = null;
/** The test's own nodes of /dev/null and /dev/full (character devices 1,3 and 1,7), or null when mknod is refused. */
const devices: { null: string; full: string } | null = (() => {
  try {
    const nodes = { null: join(dir.path, 'null'), full: join(dir.path, 'full') };
    execFileSync('mknod', ['-m', '666', nodes.null, 'c', '1', '3'], { stdio: 'ignore' });
    execFileSync('mknod', ['-m', '666', nodes.full, 'c', '1', '7'], { stdio: 'ignore' });
    return nodes;
  } catch {
    return null;
  }
})();

beforeAll(async () => {
  const setup = await startCore(data, { secrets: createMemorySecretStore(), demo: { tests: 12 } });
  const demo = await setup.services.stores.openDemo({});
  const report = await syncStore(setup, demo.id);
  expect(report.outcome).toBe('ok');
  await setup.close();
}, 60_000);

afterAll(async () => {
  await core?.close();
  dir.remove();
});

/** The CLI on the synced folder; its output lines. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    async () =>
      (core = await startCore(data, { secrets: createMemorySecretStore(), demo: { tests: 12 } })),
    { out: (l) => out.push(l), err: (l) => err.push(l) },
  );
  core = null;
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const COMMANDS = {
  export: (out: string) => ['export', 'tests', '--out', out],
  report: (out: string) => ['report', '--all', '--out', out],
} as const;

/** Reads a FIFO while `write` writes it: what came through. */
async function throughFifo(fifo: string, write: () => Promise<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  const reading = new Promise<void>((resolve, reject) => {
    const stream = createReadStream(fifo);
    stream.on('data', (chunk) => chunks.push(Buffer.from(chunk)));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  await write();
  await reading;
  return Buffer.concat(chunks).toString('utf8');
}

describe.each(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[])('%s --out', (command) => {
  const args = COMMANDS[command];

  it('writes to the null device and leaves it a device', async (ctx) => {
    if (!devices) return ctx.skip('mknod is refused here (not root): no device node of the test its own');
    const run = await cli(...args(devices.null));
    expect(run.code, run.err).toBe(0);
    expect(lstatSync(devices.null).isCharacterDevice()).toBe(true);
  });

  it('says the disk is full on the full device, and leaves it a device', async (ctx) => {
    if (!devices) return ctx.skip('mknod is refused here (not root): no device node of the test its own');
    const run = await cli(...args(devices.full));
    expect(run.code).toBe(1);
    expect(run.err).toContain(`The disk is full: Splitbook could not write ${devices.full}`);
    expect(run.err).not.toContain('ENOSPC');
    expect(lstatSync(devices.full).isCharacterDevice()).toBe(true);
  });

  it('streams into a FIFO, which stays a FIFO', async () => {
    const fifo = join(dir.path, `${command}.fifo`);
    execFileSync('mkfifo', [fifo]);
    let code = -1;
    const text = await throughFifo(fifo, async () => ({ code } = await cli(...args(fifo))));
    expect(code).toBe(0);
    expect(text).toContain(command === 'export' ? 'test_id' : '<!doctype html>');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('writes through a link to the file it names; the link stays a link', async () => {
    const real = join(dir.path, `${command}-real.out`);
    const link = join(dir.path, `${command}-link.out`);
    writeFileSync(real, 'old');
    symlinkSync(real, link);
    const run = await cli(...args(link));
    expect(run.code, run.err).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).not.toBe('old');
    expect(readFileSync(real, 'utf8').length).toBeGreaterThan(100);
  });

  it('refuses a link to nothing, a folder and a socket, writing nothing', async () => {
    const dangling = join(dir.path, `${command}-dangling`);
    symlinkSync(join(dir.path, 'nowhere', 'file'), dangling);
    const socketPath = join(dir.path, `${command}.sock`);
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      for (const [target, why] of [
        [dangling, 'is a link to a file that does not exist'],
        [dir.path, 'is a folder'],
        [socketPath, 'is a socket'],
      ] as const) {
        const run = await cli(...args(target));
        expect(run.code, target).toBe(1);
        expect(run.err).toContain(`Cannot write there: ${target} ${why}`);
      }
      expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
      expect(lstatSync(socketPath).isSocket()).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('backup --out', () => {
  it('refuses a device and a FIFO (a backup is an SQLite file), leaving them as they were', async (ctx) => {
    if (!devices) return ctx.skip('mknod is refused here (not root): no device node of the test its own');
    const fifo = join(dir.path, 'backup.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [target, what] of [
      [devices.null, 'a device'],
      [fifo, 'a pipe'],
    ] as const) {
      const run = await cli('backup', '--out', target);
      expect(run.code, target).toBe(1);
      expect(run.err).toContain(`Cannot write there: ${target} is ${what}`);
    }
    expect(lstatSync(devices.null).isCharacterDevice()).toBe(true);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('writes through a link to the file it names, which reads back as a backup', async () => {
    const real = join(dir.path, 'real.backup');
    const link = join(dir.path, 'link.backup');
    writeFileSync(real, 'old');
    symlinkSync(real, link);
    const run = await cli('backup', '--out', link);
    expect(run.code, run.err).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readBackup(real).stores).toHaveLength(1);
  });
});
