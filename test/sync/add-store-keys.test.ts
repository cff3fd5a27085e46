// Adding a store is all or nothing: a failed insert leaves no key in the keychain, and a key an
// interrupted add left behind is deleted at the next start-up (only this data folder's, by its journal).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DATABASE_FILE } from '#core/create-core';
import { journalKey } from '#core/db/cache/key-journal';
import { openDatabase } from '#core/db/open';
import type { SecretStore } from '#core/secrets/index';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { startCore, tempDir, testSecrets } from '../support/core';

const sim = createSimulator({ seed: 3, stores: [{ name: 'Acme', tests: 5 }] });
const apiKey = sim.stores[0]?.apiKey ?? '';
let served: ServedSimulator;
beforeAll(async () => {
  served = await serveSimulator(sim, { port: 0 });
});
afterAll(() => served.close());

let dir = tempDir();
afterEach(() => {
  dir.remove();
  dir = tempDir();
});

/** A keychain stand-in whose entries the test can list. */
function listedKeychain(): SecretStore & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: async (a) => entries.get(a) ?? null,
    set: async (a, s) => void entries.set(a, s),
    delete: async (a) => entries.delete(a),
    selfTest: async () => ({ available: true, message: null }),
  };
}

it('leaves no key in the keychain when the store row cannot be written', async () => {
  const keychain = listedKeychain();
  const core = await startCore(dir.path, { secrets: keychain });
  // The cache refuses the store row, as a full disk does.
  const other = new Database(join(dir.path, DATABASE_FILE));
  other.exec(
    `CREATE TRIGGER refuse BEFORE INSERT ON stores BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END`,
  );
  other.close();
  await expect(
    core.services.stores.add({ name: 'Acme', baseUrl: served.url, apiKey, sessionOnly: false }),
  ).rejects.toThrow();
  expect([...keychain.entries.keys()]).toEqual([]);
  await core.close();
});

it('deletes, at start-up, a key an interrupted add left behind, and no other', async () => {
  const keychain = listedKeychain();
  const first = await startCore(dir.path, { secrets: keychain });
  const kept = await first.services.stores.add({
    name: 'Acme',
    baseUrl: served.url,
    apiKey,
    sessionOnly: false,
  });
  await first.close();
  // What a process killed between saving the key and writing the store row leaves behind.
  const db = openDatabase(join(dir.path, DATABASE_FILE));
  journalKey(db, 'orphan-store', '2026-11-01T00:00:00Z');
  db.close();
  keychain.entries.set('orphan-store', 'sk_left_behind');
  keychain.entries.set('another-data-folders-store', 'sk_not_ours');

  const second = await startCore(dir.path, { secrets: keychain });
  await second.close(); // close waits for the start-up clean-up
  expect([...keychain.entries.keys()].sort()).toEqual(
    [kept.id, 'another-data-folders-store'].sort(),
  );
});

it('keeps the key of a store added right after start-up, while the clean-up runs', async () => {
  // The real keychain (GNOME Keyring in the suite), slow to confirm a save, as one that asks the user
  // first: the start-up clean-up of earlier orphans runs while the add's key is saved but its store
  // row is not written yet. It once took that key for an orphan and deleted it (a CLI add-store).
  const real = testSecrets();
  const slowSave: SecretStore = {
    ...real,
    set: async (account, secret) => {
      await real.set(account, secret);
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
  };
  const core = await startCore(dir.path, { secrets: slowSave });
  const added = await core.services.stores.add({
    name: 'Acme',
    baseUrl: served.url,
    apiKey,
    sessionOnly: false,
  });
  await core.close(); // waits for the clean-up
  expect(await real.get(added.id)).toBe(apiKey);
  await real.delete(added.id);
});
