// A second process beside a push: while one CLI `sync --all` sends nine edits to a slow store, `stores`
// and a second `sync --all` start on the same folder, as a user or a scheduled job would, and a third
// process opens the folder and lists its stores again and again. None may mark an edit failed ("database
// is locked"), fail with a raw SQLite message, or make the first sync fail with "The cache is busy":
// every edit is sent once. Real processes, real files, real HTTP on loopback, three trials.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { TestListInput } from '#shared/contract/index';
import { createKeychainSecretStore } from '#core/secrets/index';
import { createCore } from '#core/create-core';
import { syncAndWait } from '#core/sync/wait';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { realKeyring, tempDir } from '../support/core';
import { runTsx, type Finished } from '../hosts/support/spawn';

const ENTRY = 'src/main/hosts/cli/main.ts';
const LISTER = join(import.meta.dirname, 'fixtures/lister-child.ts');
const EDITS = 9;
const TRIALS = 3;

let served: ServedSimulator | null = null;
const dirs: { remove(): void }[] = [];
afterEach(async () => {
  await served?.close();
  served = null;
  for (const dir of dirs.splice(0)) dir.remove();
});

/** A folder with one store synced and `EDITS` title edits queued, made as the CLI makes them. */
async function folderWithEdits(
  url: string,
  apiKey: string,
  trial: number,
): Promise<{ path: string; ids: string[] }> {
  const dir = tempDir('splitbook-second-process-');
  dirs.push(dir);
  const core = await createCore({
    dataDir: dir.path,
    // The CLI's own keychain entry: the processes below read the key from it.
    secrets: createKeychainSecretStore(),
    host: 'cli',
    version: '0.0.0-test',
    pushOnEdit: false,
  });
  try {
    const { id: storeId } = await core.services.stores.add({
      name: 'Acme',
      baseUrl: url,
      apiKey,
      sessionOnly: false,
    });
    const report = await syncAndWait(core, storeId);
    expect(report.outcome).toBe('ok');
    const page = await core.services.tests.list(TestListInput.parse({ storeId, limit: EDITS }));
    const ids = page.rows.map((row) => row.id);
    for (const testId of ids)
      await core.services.edits.editTest({
        storeId,
        testId,
        changes: { title: `Renamed ${trial} ${testId.slice(0, 8)}` },
      });
    return { path: dir.path, ids };
  } finally {
    await core.close();
  }
}

/** The lister's lines: ready, then its failed rounds and how many it made once its stdin closed. */
function linesOf(child: ChildProcessByStdio<Writable, Readable, null>) {
  let ready: () => void = () => undefined;
  const failures: string[] = [];
  const done = new Promise<{ rounds: number; failures: string[] }>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { ready?: true; failed?: string; rounds?: number };
      if (message.ready) ready();
      if (message.failed !== undefined) failures.push(message.failed);
      if (message.rounds !== undefined) resolve({ rounds: message.rounds, failures });
    });
    child.once('exit', (code) => reject(new Error(`the lister exited with ${code}`)));
  });
  return { ready: new Promise<void>((resolve) => (ready = resolve)), done };
}

function cli(dataDir: string, args: string[]): Promise<Finished> {
  const env = { ...process.env };
  delete env['SPLITBOOK_API_KEY'];
  return runTsx(ENTRY, ['--data-dir', dataDir, ...args], { env });
}

it('a second stores and sync --all beside a slow push never fail an edit or the first sync', async (ctx) => {
  if (!realKeyring)
    ctx.skip('needs the OS keychain the CLI processes share (run inside scripts/with-keyring.mjs)');
  let patches = 0;
  let firstPatch: () => void = () => undefined;
  const sim = createSimulator({
    seed: 11,
    stores: [{ name: 'Acme', tests: 20 }],
    faults: { latencyMs: [30, 200] },
    onRequest: ({ method }) => {
      if (method === 'PATCH' && ++patches === 1) firstPatch();
    },
  });
  served = await serveSimulator(sim);
  const apiKey = sim.stores[0]?.apiKey ?? '';

  for (let trial = 0; trial < TRIALS; trial++) {
    patches = 0;
    const folder = await folderWithEdits(served.url, apiKey, trial);
    // A process that lists the stores again and again, each time opening the folder as a start does.
    const lister = spawn(process.execPath, ['--import', 'tsx', LISTER, folder.path], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const listed = linesOf(lister);
    await listed.ready;
    const pushing = new Promise<void>((resolve) => (firstPatch = resolve));
    const first = cli(folder.path, ['sync', '--all']);
    // Once its push is under way (so the first sync holds the store): `stores` and a second sync.
    await Promise.race([pushing, first]);
    const beside = await Promise.all([
      cli(folder.path, ['stores']),
      cli(folder.path, ['sync', '--all']),
    ]);
    const firstDone = await first;
    lister.stdin.end();
    const { rounds, failures } = await listed.done;

    expect(failures, `trial ${trial}`).toEqual([]);
    expect(rounds, `trial ${trial}`).toBeGreaterThan(3);
    for (const run of [firstDone, ...beside]) {
      const text = run.stdout + run.stderr;
      expect(text, `trial ${trial}`).not.toMatch(/database is locked|The cache is busy|Failed:/);
    }
    expect(firstDone.code, `trial ${trial}: ${firstDone.stderr}`).toBe(0);
    expect(beside[0]?.code, `trial ${trial}: ${beside[0]?.stderr}`).toBe(0);
    // The second sync found the store held by the first and said so, or ran after it: it marks nothing.
    expect(patches, `trial ${trial}`).toBe(EDITS);

    const pending = await cli(folder.path, ['pending']);
    expect(pending.stdout, `trial ${trial}`).toContain('No pending edits');
    const titles = new Map(sim.snapshot('Acme').tests.map((test) => [test.id, test.title]));
    for (const id of folder.ids) expect(titles.get(id)).toBe(`Renamed ${trial} ${id.slice(0, 8)}`);
  }
}, 240_000);
