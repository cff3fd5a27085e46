// Test support: a real core on a temporary data folder, with the real OS keychain when the suite runs
// inside scripts/with-keyring.mjs (a private GNOME Keyring) and a memory store otherwise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestListInput } from '#shared/contract/index';
import { createCore, type CoreDeps } from '#core/create-core';
import { sourceSyncThread } from '#core/sync/thread/source';
import { sourceCallThread } from '#core/decisions/call-threads';
import { syncAndWait } from '#core/sync/wait';
import type { Core } from '#core/types';
import type { Simulator } from '#simulator/index';
import {
  createKeychainSecretStore,
  createMemorySecretStore,
  type SecretStore,
} from '#core/secrets/index';

export const realKeyring = process.env.SPLITBOOK_TEST_KEYRING === '1';

/**
 * Syncs on their own thread, and a refresh's calls on the calls threads, as the app's hosts run them
 * (the vitest project `sync-thread` sets it): a core given its own `fetch` (an in-process simulator)
 * keeps syncs on the calling thread, which a thread cannot take; a fake clock crosses as an offset
 * from the system's.
 */
export const onSyncThread = process.env.SPLITBOOK_TEST_SYNC_THREAD === '1';

export function testSecrets(): SecretStore {
  return realKeyring
    ? createKeychainSecretStore({ service: 'Splitbook-test' })
    : createMemorySecretStore();
}

export function tempDir(prefix = 'splitbook-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function startCore(dataDir: string, overrides: Partial<CoreDeps> = {}): Promise<Core> {
  const threaded = onSyncThread && !overrides.fetch && !('syncThread' in overrides);
  const callThreads = onSyncThread && !('callThread' in overrides);
  return createCore({
    dataDir,
    secrets: testSecrets(),
    host: 'cli',
    version: '0.0.0-test',
    ...(threaded ? { syncThread: sourceSyncThread() } : {}),
    ...(callThreads ? { callThread: sourceCallThread() } : {}),
    ...overrides,
  });
}

export { nextSyncReport, syncAndWait as syncStore } from '#core/sync/wait';

/**
 * Adds every store of a simulator served at `url` to the core and syncs each in turn; their ids by
 * store name. A sync that does not end ok throws, with the store's name.
 */
export async function addSimulatorStores(
  core: Core,
  simulator: Simulator,
  url: string,
  { sessionOnly = true }: { sessionOnly?: boolean } = {},
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const store of simulator.stores) {
    const { id } = await core.services.stores.add({
      name: store.name,
      baseUrl: url,
      apiKey: store.apiKey,
      sessionOnly,
    });
    ids[store.name] = id;
    const report = await syncAndWait(core, id);
    if (report.outcome !== 'ok') throw new Error(`${store.name} synced ${report.outcome}`);
  }
  return ids;
}

/** Every row of the test list for a store, walking the keyset pages. */
export async function allTestRows(core: Core, storeId: string | null, includeRemoved = false) {
  const rows = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await core.services.tests.list(
      TestListInput.parse({
        storeId,
        includeRemoved,
        sort: { key: 'title', dir: 'asc' },
        cursor,
        limit: 1000,
      }),
    );
    rows.push(...page.rows);
    if (!page.nextCursor) return rows;
    cursor = page.nextCursor;
  }
}
