// The sync engine as the core sees it when syncs run on their own thread (worker.ts): the same
// SyncEngine interface, each call a call of the thread's table over its port (link.ts). The thread
// starts with the first sync or push, is restarted after a crash, and keeps the process alive only
// while it has work.
import { Worker } from 'node:worker_threads';
import type { SyncProgress, SyncReport } from '#shared/contract/index';
import { ProblemError, type Problem } from '#shared/problem';
import type { KeyRing } from '../../stores/keys';
import { noCounters } from '../pull/context';
import type { PushSummary } from '../../outbox';
import type { SyncEngine } from '../run';
import { createLink, type Link } from './link';
import {
  THREAD_METHODS,
  threadProblem,
  type FromThread,
  type MainMethods,
  type SyncThreadInit,
  type SyncThreadOptions,
  type ThreadMethods,
  type ToThread,
} from './protocol';

export interface ThreadedSyncEngineDeps {
  thread: SyncThreadOptions;
  init: SyncThreadInit;
  keys: Pick<KeyRing, 'get'>;
  /** Read before each message the thread is sent; the thread's clock shows that reading (protocol.ts). */
  clock: () => number;
  onProgress(progress: SyncProgress): void;
  onFinished(report: SyncReport): void;
  onEditsChanged?(storeId: string): void;
}

interface Run {
  progress: SyncProgress | null;
  done: Promise<SyncReport>;
}

/** A running thread and its end of the port. */
interface Thread {
  worker: Worker;
  link: Link<ThreadMethods>;
}

export function createThreadedSyncEngine(deps: ThreadedSyncEngineDeps): SyncEngine {
  const runs = new Map<string, Run>();
  /** The latest push asked for per store, so whenIdle can wait for it. */
  const pushes = new Map<string, Promise<PushSummary | null>>();
  let current: Thread | null = null;
  /** Set when the thread cannot open the cache: runs end at once with it until the core reopens. */
  let unusable: Problem | null = null;
  let closed = false;
  const now = () => new Date(deps.clock()).toISOString();
  /** What the thread may call: the keychain stays here. */
  const local: MainMethods = {
    keys: { get: ({ storeId, storeName }) => deps.keys.get(storeId, storeName) },
  };
  // The system clock the thread reads itself; another one (the tests') it is shown (protocol.ts).
  const clock = deps.clock === Date.now ? undefined : new SharedArrayBuffer(8);
  const reading = clock && new BigInt64Array(clock);

  function failedReport(storeId: string, problem: Problem): SyncReport {
    const at = now();
    return { storeId, outcome: 'error', startedAt: at, finishedAt: at, problem, ...noCounters() };
  }

  /** An idle thread does not keep the process alive; one with work (a call unanswered) does. */
  function idle(): void {
    if (current && current.link.pending() === 0) current.worker.unref();
  }

  function onMessage(link: Link<ThreadMethods>, message: FromThread): void {
    switch (message.type) {
      case 'call':
      case 'answer':
        link.receive(message);
        idle();
        break;
      case 'progress': {
        const run = runs.get(message.progress.storeId);
        if (run) run.progress = message.progress;
        deps.onProgress(message.progress);
        break;
      }
      case 'editsChanged':
        deps.onEditsChanged?.(message.storeId);
        break;
      case 'unusable':
        // The thread answers every run with this problem too; later runs need no thread to say it.
        unusable = message.problem;
        break;
    }
  }

  /** The thread's engine, started if need be, held alive for the call about to be made. */
  function thread(): ThreadMethods['engine'] {
    if (current) {
      current.worker.ref();
      return current.link.remote.engine;
    }
    const worker = new Worker(deps.thread.file, {
      workerData: { ...deps.init, clock, decoder: deps.thread.decoder } satisfies SyncThreadInit,
      execArgv: deps.thread.execArgv,
    });
    const link = createLink<ThreadMethods>({
      names: THREAD_METHODS,
      local,
      post(message) {
        if (reading) Atomics.store(reading, 0, BigInt(Math.round(deps.clock())));
        worker.postMessage(message satisfies ToThread);
      },
    });
    worker.on('message', (message: FromThread) => onMessage(link, message));
    worker.on('error', (error) => {
      console.error('[splitbook] the sync thread failed:', error);
    });
    worker.on('exit', (code) => {
      if (current?.worker === worker) current = null;
      // A thread that ends with work in hand crashed (or was never able to start): its calls end
      // with the reason, and the next sync starts a new one.
      link.abandon(
        threadProblem(
          closed
            ? 'Splitbook is closing.'
            : `The sync thread ended (exit code ${code}). Sync again to retry.`,
        ),
      );
    });
    current = { worker, link };
    return link.remote.engine;
  }

  /**
   * The thread's engine for one call: a thread that cannot even be created (no memory for it, a flag
   * this Node refuses) fails the call like a thread that died, never throws past it.
   */
  async function engine(): Promise<ThreadMethods['engine']> {
    try {
      return thread();
    } catch (error) {
      throw new ProblemError(
        threadProblem(
          `The sync thread could not start (${error instanceof Error ? error.message : String(error)}). Sync again to retry.`,
        ),
      );
    }
  }

  function problemOf(error: unknown): Problem {
    return error instanceof ProblemError
      ? error.problem
      : threadProblem(error instanceof Error ? error.message : String(error));
  }

  return {
    run(storeId) {
      const existing = runs.get(storeId);
      if (existing) return existing.done;
      if (closed || unusable) {
        const report = failedReport(storeId, unusable ?? threadProblem('Splitbook is closing.'));
        queueMicrotask(() => deps.onFinished(report));
        return Promise.resolve(report);
      }
      const run: Run = {
        progress: null,
        done: engine()
          .then((remote) => remote.run(storeId))
          .catch((error: unknown) => failedReport(storeId, problemOf(error)))
          .then((report) => {
            runs.delete(storeId);
            idle();
            try {
              deps.onFinished(report);
            } catch (error) {
              console.error('[splitbook] a sync.finished listener failed:', error);
            }
            return report;
          }),
      };
      runs.set(storeId, run);
      return run.done;
    },
    isRunning: (storeId) => runs.has(storeId),
    progress: (storeId) => runs.get(storeId)?.progress ?? null,
    cancel(storeId) {
      if (!runs.has(storeId)) return false;
      // Refused only when the thread is gone, and then the run has already ended saying so.
      void current?.link.remote.engine.cancel(storeId).catch(() => false);
      return true;
    },
    async whenIdle(storeId) {
      await Promise.allSettled([runs.get(storeId)?.done, pushes.get(storeId)]);
    },
    async cancelAll() {
      if (!current) return;
      // Refused only when the thread is gone: nothing is left running then.
      await engine()
        .then((remote) => remote.cancelAll())
        .catch(() => undefined);
    },
    push(storeId) {
      if (closed) return Promise.resolve(null);
      // A push the thread could not make (no key, the thread gone) leaves the edits queued.
      const pushed = engine()
        .then((remote) => remote.push(storeId))
        .catch(() => null);
      pushes.set(storeId, pushed);
      void pushed.then(() => {
        if (pushes.get(storeId) === pushed) pushes.delete(storeId);
      });
      return pushed;
    },
    async close() {
      if (closed) return;
      await this.cancelAll();
      closed = true;
      // The thread may have ended meanwhile (a crash): then there is nothing left to close.
      const ending = current;
      if (!ending) return;
      const exited = new Promise<void>((resolve) => ending.worker.once('exit', () => resolve()));
      ending.worker.postMessage({ type: 'close' } satisfies ToThread);
      // A thread that does not end on its own (a socket held open) is stopped after its cache closed.
      const timer = setTimeout(() => void ending.worker.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
