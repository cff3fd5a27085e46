// Two apps and a CLI on one data folder, all told to sync one store at the same moment: the app in this
// process (background sync, time injected), a second app in a process of its own (background sync), and
// the CLI's `sync`. The store's lock lets one of them sync at a time: no two runs that talked to the store
// overlap, and the ones that found it held were skipped (the apps) or said so (the CLI), never queued twice.
// Real HTTP on loopback to the simulator, which answers slowly enough for the three to meet.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { createMemorySecretStore } from '#core/secrets/index';
import { runCli } from '../../src/main/hosts/cli/run';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { HELD_RETRY_MS } from '#core/sync/background';
import { ManualTime, watchSyncs } from '../support/manual-time';
import { startCore, tempDir } from '../support/core';

const CHILD = join(import.meta.dirname, 'fixtures/background-child.ts');

type Run = {
  who: string;
  outcome: string;
  problem: string | null;
  requests: number;
  start: number;
  end: number;
};

const dir = tempDir('splitbook-background-processes-');
let served: ServedSimulator | null = null;
let core: Core | null = null;
afterEach(async () => {
  await core?.close();
  await served?.close();
  dir.remove();
});

/** A fetch that notes when each request started and ended, and the runs a core made, from its sync.finished. */
function recorder(who: string, runs: Run[]) {
  let requests: { start: number; end: number }[] = [];
  const fetchNoting: typeof fetch = async (input, init) => {
    const start = Date.now();
    try {
      return await fetch(input, init);
    } finally {
      requests.push({ start, end: Date.now() });
    }
  };
  return {
    fetch: fetchNoting,
    /** Forgets the requests so far (a key's check before any run). */
    reset: () => void (requests = []),
    follow(followed: Core) {
      followed.subscribe((event) => {
        if (event.name !== 'sync.finished') return;
        const made = requests;
        requests = [];
        runs.push({
          who,
          outcome: event.payload.outcome,
          problem: event.payload.problem?.title ?? null,
          requests: made.length,
          start: Math.min(...made.map((r) => r.start)),
          end: Math.max(...made.map((r) => r.end)),
        });
      });
    },
  };
}

it('never syncs one store twice at the same time, whichever process asks', async () => {
  const sim = createSimulator({
    seed: 3,
    stores: [{ name: 'Acme Outdoor', tests: 40 }],
    faults: { latencyMs: [15, 30] },
  });
  served = await serveSimulator(sim);
  const apiKey = sim.stores[0]?.apiKey ?? '';
  const runs: Run[] = [];
  const secrets = createMemorySecretStore();
  // This app's time starts at the wall clock's, which the other processes go by.
  const time = new ManualTime(Date.now());

  const app = recorder('app', runs);
  core = await startCore(dir.path, {
    host: 'browser',
    secrets,
    clock: time.now,
    timers: time,
    backgroundSync: true,
    fetch: app.fetch,
  });
  const appCore = core;
  app.follow(appCore);
  const watch = watchSyncs(appCore);
  const { id: storeId } = await appCore.services.stores.add({
    name: 'Acme Outdoor',
    baseUrl: served.url,
    apiKey,
    sessionOnly: false,
  });
  app.reset();

  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir.path, storeId, apiKey], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let childSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => (childSynced = resolve));
  const ready = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { ready?: true; run?: Omit<Run, 'who'> };
      if (message.ready) resolve();
      if (message.run) runs.push({ who: 'second app', ...message.run });
      if (message.run && message.run.requests > 0) childSynced();
    });
  });
  await ready;

  const cli = recorder('cli', runs);
  const out: string[] = [];
  // All three at once: the second app and this one paint their windows, and the CLI syncs.
  child.stdin.write('go\n');
  appCore.background.windowReady();
  const [code] = await Promise.all([
    runCli(
      ['sync', '--store', storeId],
      async () => {
        const cliCore = await startCore(dir.path, { host: 'cli', secrets, fetch: cli.fetch });
        cli.follow(cliCore);
        return cliCore;
      },
      { out: (line) => out.push(line), err: (line) => out.push(line) },
    ),
    time.advance(0, () => watch.idle()),
  ]);
  // The second app, woken, syncs in turn if it was skipped; this one looks again at a store it found
  // held, sees it freshly synced, and leaves it: not queued twice.
  child.stdin.write('wake\n');
  await synced;
  await time.advance(HELD_RETRY_MS, () => watch.idle());
  child.stdin.write('stop\n');
  await exited;

  const talked = runs.filter((run) => run.requests > 0);
  expect(talked.map((run) => run.who)).toContain('second app');
  expect(talked.filter((run) => run.who === 'app').length).toBeLessThanOrEqual(1);
  expect(talked.every((run) => run.outcome === 'ok' || run.outcome === 'cancelled')).toBe(true);
  for (const a of talked) {
    for (const b of talked) {
      if (a === b) continue;
      expect(a.end <= b.start || b.end <= a.start, `${a.who} and ${b.who} synced at once`).toBe(
        true,
      );
    }
  }
  // A run that found the store held talked to no one and said why; the apps' background syncs skip a held
  // store without a run at all.
  for (const run of runs.filter((r) => r.requests === 0 && r.outcome !== 'cancelled'))
    expect(run.problem).toBe('Already syncing in another window');
  // This app's background sync looks before it runs: it skips a held store rather than failing on it.
  expect(runs.filter((r) => r.who === 'app' && r.requests === 0)).toEqual([]);
  expect(code === 0 || out.join('\n').includes('Already syncing')).toBe(true);
}, 60_000);
