// The sync thread: the same sync engine as in-process (sync/run.ts) on a connection of its own, so
// HTTP, parsing, compression and ingest never hold up the main thread that answers the window.
// The main thread keeps the keychain and reads; this thread is the cache's writer during syncs.
import { parentPort, workerData } from 'node:worker_threads';
import { ProblemError } from '#shared/problem';
import { openDatabase } from '../../db/open';
import type { Db } from '../../db/types';
import { createDemoStore, type DemoStore } from '../../stores/demo';
import type { KeyRing } from '../../stores/keys';
import { createStoreRegistry } from '../../stores/registry';
import { classifyFailure } from '../outcome';
import { threadDecoder } from '../decode/decoder';
import { createSyncEngine, type SyncEngine } from '../run';
import { createStoreLocks } from '../store-lock';
import { createLink, type Link } from './link';
import {
  MAIN_METHODS,
  threadProblem,
  type FromThread,
  type MainMethods,
  type SyncThreadInit,
  type ThreadMethods,
  type ToThread,
} from './protocol';

const port = parentPort;
if (!port) throw new Error('sync/thread/worker.ts runs only as a worker thread');
const init: SyncThreadInit = workerData;
const post = (message: FromThread) => port.postMessage(message);

/** The core's clock: the system's, or the reading of its own the main thread last showed (protocol.ts). */
const reading = init.clock && new BigInt64Array(init.clock);
const clock = reading ? () => Number(Atomics.load(reading, 0)) : Date.now;

/** Keys come from the main thread, which holds the keychain and the session-only keys. */
let main: Link<MainMethods> | null = null;
const keys: Pick<KeyRing, 'get'> = {
  get(storeId, storeName) {
    if (!main) return Promise.reject(new Error('The sync thread is not connected yet'));
    return main.remote.keys.get({ storeId, storeName });
  },
};

function start(): { db: Db; engine: SyncEngine } | ProblemError {
  let db: Db;
  try {
    // The main thread checked and migrated the file when it opened it.
    db = openDatabase(init.cacheFile, { userDataFile: init.userDataFile, quickCheck: false });
  } catch (error) {
    const problem =
      classifyFailure(error).problem ?? threadProblem('The sync thread could not open the cache.');
    post({ type: 'unusable', problem });
    return new ProblemError(problem);
  }
  let demo: DemoStore | null = null;
  const stores = createStoreRegistry({
    db,
    keys,
    fetch: globalThis.fetch,
    demoStore: () => (demo ??= createDemoStore({ clock, ...init.demo })),
  });
  const engine = createSyncEngine({
    db,
    lock: createStoreLocks(init.dataDir),
    clientFor: stores.clientFor,
    clock,
    perPage: init.perPage,
    resultsConcurrency: init.resultsConcurrency,
    onProgress: (progress) => post({ type: 'progress', progress }),
    // A run's report is the answer to its call (below), so the main thread hears of it once.
    onFinished: () => undefined,
    onEditsChanged: (storeId) => post({ type: 'editsChanged', storeId }),
    rememberRate: stores.rememberRate,
    // Results answers are read on a thread of this thread's own, when the build or tsx names one.
    resultsDecoder: init.decoder ? threadDecoder(init.decoder) : undefined,
  });
  return { db, engine };
}

const started = start();

/** What the main thread may call: the engine's calls, or their refusal when the cache would not open. */
const served: ThreadMethods =
  started instanceof ProblemError
    ? {
        engine: {
          run: () => Promise.reject(started),
          cancel: async () => false,
          cancelAll: async () => undefined,
          push: async () => null,
        },
      }
    : {
        engine: {
          run: (storeId) => started.engine.run(storeId),
          cancel: async (storeId) => started.engine.cancel(storeId),
          cancelAll: () => started.engine.cancelAll(),
          push: (storeId) => started.engine.push(storeId),
        },
      };

const link = createLink<MainMethods>({ names: MAIN_METHODS, local: served, post });
main = link;

port.on('message', (message: ToThread) => {
  if (message.type !== 'close') {
    link.receive(message);
    return;
  }
  const closing = started instanceof ProblemError ? null : started;
  void (closing?.engine.close() ?? Promise.resolve()).then(() => {
    closing?.db.close();
    port.close();
  });
});
