// The sync thread: the same sync engine as in-process (sync/run.ts) on a connection of its own, so
// HTTP, parsing, compression and ingest never hold up the main thread that answers the window.
// The main thread keeps the keychain and reads; this thread is the cache's writer during syncs.
import { parentPort, workerData } from 'node:worker_threads';
import { ProblemError } from '../../../../shared/problem';
import { openDatabase, type Db } from '../../db';
import { createDemoStore, type DemoStore } from '../../stores/demo';
import type { KeyRing } from '../../stores/keys';
import { createStoreRegistry } from '../../stores/registry';
import { classifyFailure } from '../outcome';
import { createSyncEngine, type SyncEngine } from '../run';
import { createStoreLocks } from '../store-lock';
import type { FromThread, SyncThreadInit, ToThread } from './protocol';

const port = parentPort;
if (!port) throw new Error('sync/thread/worker.ts runs only as a worker thread');
const init = workerData as SyncThreadInit;
const post = (message: FromThread) => port.postMessage(message);

let nextId = 1;
const keyRequests = new Map<number, { resolve(key: string): void; reject(e: unknown): void }>();

/** Keys come from the main thread, which holds the keychain and the session-only keys. */
const keys: Pick<KeyRing, 'get'> = {
  get: (storeId, storeName) =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      keyRequests.set(id, { resolve, reject });
      post({ type: 'key', id, storeId, storeName });
    }),
};

function start(): { db: Db; engine: SyncEngine } | null {
  let db: Db;
  try {
    // The main thread checked and migrated the file when it opened it.
    db = openDatabase(init.cacheFile, { userDataFile: init.userDataFile, quickCheck: false });
  } catch (error) {
    const { problem } = classifyFailure(error);
    if (problem) post({ type: 'unusable', problem });
    return null;
  }
  let demo: DemoStore | null = null;
  const stores = createStoreRegistry({
    db,
    keys,
    fetch: globalThis.fetch,
    demoStore: () => (demo ??= createDemoStore({ clock: Date.now, ...init.demo })),
  });
  const engine = createSyncEngine({
    db,
    lock: createStoreLocks(init.dataDir),
    clientFor: stores.clientFor,
    clock: Date.now,
    perPage: init.perPage,
    resultsConcurrency: init.resultsConcurrency,
    onProgress: (progress) => post({ type: 'progress', progress }),
    onFinished: (report) => post({ type: 'finished', report }),
    onEditsChanged: (storeId) => post({ type: 'editsChanged', storeId }),
    rememberRate: stores.rememberRate,
  });
  return { db, engine };
}

const started = start();

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'run':
      if (started) void started.engine.run(message.storeId);
      break;
    case 'cancel':
      started?.engine.cancel(message.storeId);
      break;
    case 'cancelAll':
      void (started?.engine.cancelAll() ?? Promise.resolve()).then(() =>
        post({ type: 'cancelledAll', id: message.id }),
      );
      break;
    case 'push':
      void (started?.engine.push(message.storeId) ?? Promise.resolve(null))
        .catch(() => null)
        .then((summary) => post({ type: 'pushed', id: message.id, summary }));
      break;
    case 'key': {
      const request = keyRequests.get(message.id);
      keyRequests.delete(message.id);
      if (!request) break;
      if (message.key !== null) request.resolve(message.key);
      else if (message.problem) request.reject(new ProblemError(message.problem));
      else request.reject(new Error('No key came back from the main thread'));
      break;
    }
    case 'close':
      void (started?.engine.cancelAll() ?? Promise.resolve()).then(() => {
        started?.db.close();
        port.close();
      });
      break;
  }
});
