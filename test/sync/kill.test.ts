// A sync killed with SIGKILL mid-run leaves a sound cache, and the next run resumes and completes it.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { DATABASE_FILE } from '#core/create-core';
import { allTestRows, startCore, syncStore, tempDir } from '../support/core';
import { createMemorySecretStore } from '#core/secrets/index';

let served: ServedSimulator | null = null;
const dir = tempDir();
afterEach(async () => {
  await served?.close();
  dir.remove();
});

it('survives SIGKILL in the middle of a sync: integrity ok, resumed, every count matches', async () => {
  const sim = createSimulator({ seed: 11, stores: [{ name: 'Acme', tests: 1000 }] });
  sim.setFaults({ latencyMs: 25 });
  served = await serveSimulator(sim, { port: 0 });
  const apiKey = sim.stores[0]?.apiKey ?? '';

  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, 'fixtures/sync-child.ts'),
      dir.path,
      served.url,
      apiKey,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  let storeId = '';
  for await (const line of createInterface({ input: child.stdout })) {
    const { event, payload } = JSON.parse(line) as {
      event: string;
      payload: { storeId: string; phase?: string; done?: number };
    };
    if (event === 'added') storeId = payload.storeId;
    // Kill it in the middle of the test listing: some pages committed, the rest not.
    if (event === 'sync.progress' && payload.phase === 'tests' && (payload.done ?? 0) >= 400) {
      child.kill('SIGKILL');
      break;
    }
  }
  expect(await exited).toBe('SIGKILL');

  const core = await startCore(dir.path, { secrets: createMemorySecretStore() });
  const partial = await allTestRows(core, storeId);
  expect(partial.length).toBeGreaterThanOrEqual(400);
  expect(partial.length).toBeLessThan(1000);

  await core.services.stores.setKey({ storeId, apiKey, sessionOnly: true });
  sim.setFaults({ latencyMs: 0 });
  sim.resetStats();
  const report = await syncStore(core, storeId);
  expect(report.outcome).toBe('ok');
  // Resumed from the first unfinished page rather than from page 1.
  expect(sim.stats().byRoute['GET /tests']?.['200']).toBeLessThan(10);
  expect(await allTestRows(core, storeId)).toHaveLength(1000);
  expect(report.testsRemoved).toBe(0);
  await core.close();

  const db = new Database(join(dir.path, DATABASE_FILE), { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.prepare('SELECT count(*) AS n FROM tests').get()).toEqual({ n: 1000 });
  db.close();
});
