// A world for edits across server faults: the simulator on loopback behind a small proxy that can let the
// store apply a write and then answer 500 (or answer 500 without the store seeing it), a data folder the CLI works on, and a record of every PATCH the
// store applied with the test as it stood after it, to tell how often and in what order edits arrived.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import type { Test } from '#shared/api/index';
import { createKeychainSecretStore, createMemorySecretStore } from '#core/secrets/index';
import { runCli } from '../../src/main/hosts/cli/run';
import { startCore, tempDir } from '../support/core';

export type Applied = { testId: string; test: Test };

export interface FaultWorld {
  sim: Simulator;
  served: ServedSimulator;
  /** The proxy's base URL: the store's API base URL in Splitbook. */
  url: string;
  dir: { path: string; remove(): void };
  storeId: string;
  apiKey: string;
  /** Every PATCH /tests/{id} the store applied (answered or not), in order, with the test after it. */
  applied: Applied[];
  /** Called as the store applies each PATCH, before its answer leaves. */
  onPatch: ((applied: Applied) => void) | null;
  /** The next `count` PATCHes are applied by the store, then answered 500 instead of its answer. */
  failAfterApply(count: number): void;
  /** The next `count` PATCHes never reach the store: the proxy answers 500 itself. */
  refuseWrites(count: number): void;
  /** After the next PATCH (whatever became of it), the store is unreachable until `reachable()`. */
  unreachableAfterNextPatch(): void;
  reachable(): void;
  /** The CLI in this process on the world's folder, with the store's key for the session. */
  cli(argv: string[]): Promise<{ code: number; out: string; err: string }>;
  close(): Promise<void>;
}

async function body(message: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Forwards to `target`; a write marked to fail reaches the store, and its answer is replaced by a 500. */
type ProxyState = { failing: number; refusing: number; downAfterPatch: boolean; down: boolean };

function answer500(response: ServerResponse, detail: string): void {
  response.writeHead(500, { 'content-type': 'application/problem+json' });
  response.end(
    JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500, detail }),
  );
}

function startProxy(target: string, state: ProxyState): Promise<Server> {
  const server = createServer((request, response) => {
    void (async () => {
      if (state.down) {
        request.socket.destroy();
        return;
      }
      const payload = await body(request);
      const patch = request.method === 'PATCH';
      if (patch && state.refusing > 0) {
        state.refusing -= 1;
        answer500(response, 'Failed before applying');
        return;
      }
      if (patch && state.downAfterPatch) {
        state.downAfterPatch = false;
        response.on('close', () => (state.down = true));
      }
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type', 'accept']) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      let upstream: Response;
      try {
        upstream = await fetch(new URL(request.url ?? '/', target), {
          method: request.method,
          headers,
          body: payload.length > 0 ? payload : undefined,
        });
      } catch {
        // The store dropped the connection: so does the proxy.
        if (patch && response.listenerCount('close') > 0) state.down = true;
        request.socket.destroy();
        return;
      }
      const answer = Buffer.from(await upstream.arrayBuffer());
      if (patch && state.failing > 0) {
        state.failing -= 1;
        answer500(response, 'Applied, then failed');
        return;
      }
      const relayed: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (
          !['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name)
        )
          relayed[name] = value;
      });
      response.writeHead(upstream.status, relayed);
      response.end(answer);
    })().catch(() => request.socket.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * With `keychain`, the store's key is kept in the OS keychain (the private one of scripts/with-keyring.mjs)
 * under the service the CLI uses, so a CLI in a process of its own can sync; otherwise for each core's session.
 */
export async function faultWorld(
  options: { tests?: number; seed?: number; keychain?: boolean } = {},
): Promise<FaultWorld> {
  const keychain = options.keychain ?? false;
  const secrets = () => (keychain ? createKeychainSecretStore() : createMemorySecretStore());
  const applied: Applied[] = [];
  let simRef: Simulator | null = null;
  let worldRef: FaultWorld | null = null;
  const sim = createSimulator({
    seed: options.seed ?? 23,
    stores: [{ name: 'Acme', tests: options.tests ?? 40 }],
    onRequest(entry) {
      const match = /\/tests\/([^/?]+)$/.exec(entry.path.split('?')[0] ?? '');
      if (
        entry.method !== 'PATCH' ||
        !match?.[1] ||
        (entry.status !== 0 && (entry.status < 200 || entry.status > 299))
      )
        return;
      const test = simRef?.snapshot('Acme').tests.find((t) => t.id === match[1]);
      if (!test) return;
      applied.push({ testId: test.id, test });
      worldRef?.onPatch?.({ testId: test.id, test });
    },
  });
  simRef = sim;
  const served = await serveSimulator(sim, { port: 0 });
  const state: ProxyState = { failing: 0, refusing: 0, downAfterPatch: false, down: false };
  const proxy = await startProxy(served.url, state);
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const dir = tempDir('splitbook-faults-');
  const apiKey = sim.stores[0]?.apiKey ?? '';
  const setup = await startCore(dir.path, { secrets: secrets(), pushOnEdit: false });
  const store = await setup.services.stores.add({
    name: 'Acme',
    baseUrl: url,
    apiKey,
    sessionOnly: !keychain,
  });
  await setup.close();

  const world: FaultWorld = {
    sim,
    served,
    url,
    dir,
    storeId: store.id,
    apiKey,
    applied,
    onPatch: null,
    failAfterApply(count) {
      state.failing += count;
    },
    refuseWrites(count) {
      state.refusing += count;
    },
    unreachableAfterNextPatch() {
      state.downAfterPatch = true;
    },
    reachable() {
      state.down = false;
    },
    async cli(argv) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        argv,
        async () => {
          const core = await startCore(dir.path, { secrets: secrets(), pushOnEdit: false });
          if (!keychain)
            await core.services.stores.setKey({ storeId: store.id, apiKey, sessionOnly: true });
          return core;
        },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    },
    async close() {
      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      });
      await served.close();
      dir.remove();
    },
  };
  worldRef = world;
  const first = await world.cli(['sync']);
  if (first.code !== 0) throw new Error(`first sync: ${first.err}`);
  return world;
}

/** SQLite's full integrity check of the folder's two files. */
export function integrityOf(dataDir: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of ['splitbook.db', 'splitbook-user.db']) {
    const db = new Database(join(dataDir, name), { readonly: true, fileMustExist: true });
    try {
      result[name] = String(db.pragma('integrity_check', { simple: true }));
    } finally {
      db.close();
    }
  }
  return result;
}

/** How many PATCHes each test received. */
export function patchesPerTest(applied: readonly Applied[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const a of applied) counts.set(a.testId, (counts.get(a.testId) ?? 0) + 1);
  return counts;
}

/** The values a field of a test held after each PATCH, in order. */
export function fieldHistory(
  applied: readonly Applied[],
  testId: string,
  field: keyof Test,
): unknown[] {
  return applied.filter((a) => a.testId === testId).map((a) => a.test[field]);
}
