// Outbox test support: a real cache file with the user's own file attached (as the app opens them), the
// records cached in it, and a simulated store served on loopback with a client and a push's send context.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { Campaign, CustomAudience, Test } from '#shared/api/index';
import { createApiClient, type ApiClient } from '#core/api/index';
import { replaceCampaigns } from '#core/db/cache/campaigns';
import { replaceCustomAudiences } from '#core/db/cache/audiences';
import { upsertTests } from '#core/db/cache/tests';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import type { SendContext } from '#core/outbox/kinds/index';
import { createSendContext } from '#core/outbox/push';
import { createSimulator, serveSimulator, type Simulator } from '#simulator/index';
import { addStore } from '../db/fixtures';

export const STORE = 'store-1';
export const NOW = '2026-03-01T12:00:00.000Z';

/** A cache and the user's file in a temporary folder, one store added; closed after the test. */
export function outboxDb(): Db {
  const dir = mkdtempSync(join(tmpdir(), 'splitbook-outbox-'));
  const db = openDatabase(join(dir, 'splitbook.db'), {
    userDataFile: join(dir, 'splitbook-user.db'),
  });
  onTestFinished(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  addStore(db, STORE);
  return db;
}

/** Caches records as a pull would (tests, the active campaigns, the audiences). */
export function cache(
  db: Db,
  records: { tests?: Test[]; campaigns?: Campaign[]; audiences?: CustomAudience[] },
): void {
  if (records.tests)
    upsertTests(db, { storeId: STORE, tests: records.tests, runId: 'run-1', syncedAt: NOW });
  if (records.campaigns)
    replaceCampaigns(db, { storeId: STORE, campaigns: records.campaigns, syncedAt: NOW });
  if (records.audiences)
    replaceCustomAudiences(db, { storeId: STORE, audiences: records.audiences, syncedAt: NOW });
}

export type Sent = { method: string; path: string; body: unknown };

export interface ServedStore {
  sim: Simulator;
  db: Db;
  client: ApiClient;
  /** Every request the client made (method, path below the API prefix, JSON body). */
  requests: Sent[];
  writes(): Sent[];
  snapshot(): ReturnType<Simulator['snapshot']>;
  setOffline(offline: boolean): Promise<void>;
  /** A write made by someone else with the store's writable key (not recorded). */
  elsewhere(method: string, path: string, body: unknown): Promise<Response>;
  /** A push's context, counting requests and outbox changes. */
  send(signal?: AbortSignal): SendContext & { counts: { requests: number; changes: number } };
}

/**
 * A simulated store "Acme" served over HTTP on loopback, its records cached as a sync leaves them, and a
 * client of its writable key (or its read-only one) that tries each request once.
 */
export async function servedStore(
  options: { tests?: number; readOnly?: boolean } = {},
): Promise<ServedStore> {
  const sim = createSimulator({
    seed: 7,
    stores: [
      { name: 'Acme', tests: options.tests ?? 12 },
      { name: 'Acme', readOnly: true },
    ],
  });
  const served = await serveSimulator(sim, { port: 0 });
  onTestFinished(() => served.close());
  const requests: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
    );
    const text = typeof init?.body === 'string' ? init.body : '';
    requests.push({
      method: init?.method ?? 'GET',
      path: url.pathname.replace('/api/public/v1', ''),
      body: text ? (JSON.parse(text) as unknown) : null,
    });
    return fetch(input, init);
  };
  const key = sim.stores.find((s) => s.readOnly === (options.readOnly ?? false));
  const client = createApiClient({
    baseUrl: served.url,
    apiKey: key?.apiKey ?? '',
    fetch: recording,
    maxAttempts: 1,
  });
  const db = outboxDb();
  const snapshot = () => sim.snapshot('Acme');
  const now = snapshot();
  cache(db, {
    tests: now.tests,
    campaigns: now.campaigns.filter((c) => c.status === 'active'),
    audiences: now.customAudiences,
  });
  return {
    sim,
    db,
    client,
    requests,
    writes: () => requests.filter((r) => r.method !== 'GET'),
    snapshot,
    setOffline: (offline) => served.setOffline(offline),
    elsewhere: (method, path, body) =>
      fetch(`${served.url}/api/public/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${sim.stores.find((s) => !s.readOnly)?.apiKey ?? ''}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      }),
    send(signal = new AbortController().signal) {
      const counts = { requests: 0, changes: 0 };
      const ctx = createSendContext(
        {
          db,
          storeId: STORE,
          client,
          signal,
          now: () => NOW,
          changed: () => void (counts.changes += 1),
        },
        () => void (counts.requests += 1),
      );
      return { ...ctx, counts };
    },
  };
}

/** The first test of the store in one of these statuses. */
export function testWith(store: ServedStore, statuses: readonly string[]): Test {
  const test = store.snapshot().tests.find((t) => statuses.includes(t.status));
  if (!test) throw new Error(`no test with status ${statuses.join('/')}`);
  return test;
}

export const DRAFT = ['draft', 'scheduled'];
export const LAUNCHED = ['active', 'paused'];
