// After a full sync, the API key occurs nowhere in the database file, its WAL, or anything logged.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { createSimulator, serveSimulator } from '#simulator/index';
import { DATABASE_FILE } from '#core/create-core';
import { startCore, syncStore, tempDir } from '../support/core';

const dir = tempDir();
afterEach(() => {
  vi.restoreAllMocks();
  dir.remove();
});

it('keeps the key out of SQLite, the WAL and the logs, even through failures', async () => {
  const sim = createSimulator({ seed: 3, stores: [{ name: 'Acme', tests: 120 }] });
  sim.setFaults({ errorRate: 0.05, resetRate: 0.05, brokenTests: { count: 1 } });
  const served = await serveSimulator(sim, { port: 0 });
  const apiKey = sim.stores[0]?.apiKey ?? '';
  const logged: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation(
      (...args: unknown[]) => void logged.push(args.map(String).join(' ')),
    );
  }
  const core = await startCore(dir.path);
  const events: string[] = [];
  core.subscribe((event) => events.push(`${event.name} ${JSON.stringify(event.payload)}`));

  const store = await core.services.stores.add({
    name: 'Acme',
    baseUrl: served.url,
    apiKey,
    sessionOnly: false,
  });
  const report = await syncStore(core, store.id);
  expect(['ok', 'partial']).toContain(report.outcome);
  await served.close();
  const offline = await syncStore(core, store.id); // a failure's problem text must not carry the key either
  expect(offline.outcome).toBe('offline');

  const results = JSON.stringify([
    await core.services.stores.list({}),
    await core.services.sync.issues({ storeId: null, kind: null, cursor: null, limit: 500 }),
    report,
    offline,
  ]);
  const files = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]
    .map((name) => join(dir.path, name))
    .filter((file) => existsSync(file));
  expect(files.length).toBeGreaterThanOrEqual(2);
  for (const file of files) expect(readFileSync(file).includes(Buffer.from(apiKey))).toBe(false);
  for (const text of [...logged, ...events, results]) expect(text).not.toContain(apiKey);
  await core.close();
});
