// Edits test support: a simulator served on loopback, a core on a temporary folder with one store added
// and synced, and helpers to read the server's ground truth and the requests the core sent.
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { createMemorySecretStore } from '#core/secrets/index';
import type { Core } from '#core/types';
import type { Test } from '#shared/api/index';
import { startCore, syncStore, tempDir } from '../support/core';

export type Sent = { method: string; path: string; body: unknown };

export interface EditsWorld {
  sim: Simulator;
  served: ServedSimulator;
  dir: { path: string; remove(): void };
  core: Core;
  storeId: string;
  apiKey: string;
  /** Every write the core sent, with its JSON body. */
  writes: Sent[];
  /** A fresh core on the same folder (the old one is closed), with the key set again. */
  restart(options?: { pushOnEdit?: boolean }): Promise<Core>;
  /** Closes the core (once), so another process can use the folder alone. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function editsWorld(
  options: { tests?: number; readOnly?: boolean; pushOnEdit?: boolean; seed?: number } = {},
): Promise<EditsWorld> {
  const sim = createSimulator({
    seed: options.seed ?? 5,
    stores: [
      { name: 'Acme', tests: options.tests ?? 40 },
      { name: 'Acme', readOnly: true },
    ],
  });
  const served = await serveSimulator(sim, { port: 0 });
  const dir = tempDir('splitbook-edits-');
  const writes: Sent[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const method = init?.method ?? 'GET';
    if (method !== 'GET') {
      const url = new URL(
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      );
      const text = typeof init?.body === 'string' ? init.body : '';
      writes.push({
        method,
        path: url.pathname,
        body: text ? (JSON.parse(text) as unknown) : null,
      });
    }
    return fetch(input, init);
  };
  const key = sim.stores.find((s) => s.readOnly === (options.readOnly ?? false));
  const apiKey = key?.apiKey ?? '';
  const open = (pushOnEdit: boolean) =>
    startCore(dir.path, { secrets: createMemorySecretStore(), fetch: recordingFetch, pushOnEdit });
  let core = await open(options.pushOnEdit ?? false);
  let open_ = true;
  const store = await core.services.stores.add({
    name: 'Acme',
    baseUrl: served.url,
    apiKey,
    sessionOnly: true,
  });
  const report = await syncStore(core, store.id);
  if (report.outcome !== 'ok') throw new Error(`first sync: ${report.outcome}`);
  const world: EditsWorld = {
    sim,
    served,
    dir,
    core,
    storeId: store.id,
    apiKey,
    writes,
    async stop() {
      if (open_) await world.core.close();
      open_ = false;
    },
    async restart(o = {}) {
      await world.stop();
      core = await open(o.pushOnEdit ?? false);
      open_ = true;
      world.core = core;
      await core.services.stores
        .setKey({ storeId: store.id, apiKey, sessionOnly: true })
        .catch(() => undefined);
      return core;
    },
    async close() {
      await world.stop();
      await served.close();
      dir.remove();
    },
  };
  return world;
}

export function serverTest(world: EditsWorld, id: string): Test {
  const test = world.sim.snapshot('Acme').tests.find((t) => t.id === id);
  if (!test) throw new Error(`no test ${id}`);
  return test;
}

export function testWithStatus(world: EditsWorld, statuses: readonly string[]): Test {
  const test = world.sim.snapshot('Acme').tests.find((t) => statuses.includes(t.status));
  if (!test) throw new Error(`no test with status ${statuses.join('/')}`);
  return test;
}

export function testsWithStatus(world: EditsWorld, statuses: readonly string[]): Test[] {
  return world.sim.snapshot('Acme').tests.filter((t) => statuses.includes(t.status));
}

export const DRAFT = ['draft', 'scheduled'];
export const LAUNCHED = ['active', 'paused'];

export function patches(world: EditsWorld, path?: string): Sent[] {
  return world.writes.filter(
    (w) => w.method === 'PATCH' && (path === undefined || w.path.endsWith(path)),
  );
}

export { syncStore };
