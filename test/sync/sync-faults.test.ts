// Each I/O step of a sync fails in turn (the lock, the database, the keychain, the network): the
// process survives, and every run ends with an outcome and a problem the user can read.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DATABASE_FILE } from '#core/create-core';
import { createMemorySecretStore, keychainProblem, type SecretStore } from '#core/secrets/index';
import { lockFile } from '#core/sync/store-lock';
import type { Core } from '#core/types';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { startCore, syncStore, tempDir } from '../support/core';

const dir = tempDir();
const sim = createSimulator({ seed: 5, stores: [{ name: 'Acme', tests: 30 }] });
const apiKey = sim.stores[0]?.apiKey ?? '';
let served: ServedSimulator;
let serving = true;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  served = await serveSimulator(sim, { port: 0 });
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  if (serving) await served.close();
  dir.remove();
});
afterEach(() => expect(unhandled).toEqual([]));

/** A keychain that can be told to fail, as a locked or absent one does. */
function flakyKeychain(): SecretStore & { failing: boolean } {
  const inner = createMemorySecretStore();
  const store = {
    failing: false,
    get: async (account: string) => {
      if (store.failing) throw keychainProblem(new Error('The keyring is locked'));
      return inner.get(account);
    },
    set: inner.set,
    delete: inner.delete,
    selfTest: inner.selfTest,
  };
  return store;
}

const keychain = flakyKeychain();
let storeId = '';

async function withCore(run: (core: Core) => Promise<void>): Promise<void> {
  const core = await startCore(dir.path, { secrets: keychain });
  try {
    await run(core);
  } finally {
    await core.close();
  }
}

it('syncs when nothing fails', async () => {
  await withCore(async (core) => {
    const store = await core.services.stores.add({
      name: 'Acme',
      baseUrl: served.url,
      apiKey,
      sessionOnly: false,
    });
    storeId = store.id;
    expect((await syncStore(core, storeId)).outcome).toBe('ok');
  });
});

it('the lock cannot be taken: the data folder cannot be written', async () => {
  // Where the lock file belongs stands a folder: SQLite cannot open it, as on a read-only disk.
  rmSync(lockFile(dir.path, storeId), { force: true });
  mkdirSync(lockFile(dir.path, storeId), { recursive: true });
  await withCore(async (core) => {
    const report = await syncStore(core, storeId);
    expect(report.outcome).toBe('error');
    expect(report.problem?.title).toBe('The data folder cannot be written');
    // Browsing what is cached goes on.
    expect((await core.services.stores.list({}))[0]?.counts).toBeTruthy();
  });
  rmSync(lockFile(dir.path, storeId), { recursive: true });
});

it('the database cannot be written: the cache is busy', async () => {
  await withCore(async (core) => {
    // Another program takes the cache's write lock and keeps it past the busy timeout.
    const holder = new Database(join(dir.path, DATABASE_FILE));
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const report = await syncStore(core, storeId);
      expect(report.outcome).toBe('error');
      expect(report.problem?.title).toBe('The cache is busy');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
}, 30_000);

it('the keychain refuses: the keychain problem is the report', async () => {
  keychain.failing = true;
  try {
    await withCore(async (core) => {
      const report = await syncStore(core, storeId);
      expect(report.outcome).toBe('error');
      expect(report.problem?.type).toBe('splitbook:keychain');
      expect(report.problem?.title).toBe('The keychain is locked');
    });
  } finally {
    keychain.failing = false;
  }
});

it('the network is gone: offline', async () => {
  await served.close();
  serving = false;
  await withCore(async (core) => {
    const report = await syncStore(core, storeId);
    expect(report.outcome).toBe('offline');
    expect(report.problem?.title).toBe("Cannot reach the store's API");
  });
});
