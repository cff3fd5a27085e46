// The sync engine as the core sees it when syncs run on their own thread (worker.ts): the same
// SyncEngine interface, each call a message. The thread starts with the first sync or push, is
// restarted after a crash, and keeps the process alive only while it has work.
import { Worker } from 'node:worker_threads';
import type { SyncProgress, SyncReport } from '../../../../shared/contract';
import { appProblem, ProblemError, type Problem } from '../../../../shared/problem';
import type { KeyRing } from '../../stores/keys';
import { noCounters } from '../pull/context';
import type { PushSummary } from '../../outbox';
import type { SyncEngine } from '../run';
import type { FromThread, SyncThreadInit, SyncThreadOptions, ToThread } from './protocol';

export interface ThreadedSyncEngineDeps {
  thread: SyncThreadOptions;
  init: SyncThreadInit;
  keys: Pick<KeyRing, 'get'>;
  clock: () => number;
  onProgress(progress: SyncProgress): void;
  onFinished(report: SyncReport): void;
  onEditsChanged?(storeId: string): void;
}

interface Run {
  progress: SyncProgress | null;
  done: Promise<SyncReport>;
  resolve(report: SyncReport): void;
}

/** A thread that ended or could not start: the problem every run it held ends with. */
function threadProblem(detail: string): Problem {
  return appProblem('internal', 500, 'The sync stopped unexpectedly', detail);
}

export function createThreadedSyncEngine(deps: ThreadedSyncEngineDeps): SyncEngine {
  const runs = new Map<string, Run>();
  const replies = new Map<number, (value: PushSummary | null) => void>();
  /** The latest push asked for per store, so whenIdle can wait for it. */
  const pushes = new Map<string, Promise<PushSummary | null>>();
  let nextId = 1;
  let worker: Worker | null = null;
  /** Set when the thread cannot open the cache: runs end at once with it until the core reopens. */
  let unusable: Problem | null = null;
  let closed = false;
  const now = () => new Date(deps.clock()).toISOString();

  function failedReport(storeId: string, problem: Problem): SyncReport {
    const at = now();
    return { storeId, outcome: 'error', startedAt: at, finishedAt: at, problem, ...noCounters() };
  }

  function finish(report: SyncReport): void {
    const run = runs.get(report.storeId);
    if (!run) return;
    runs.delete(report.storeId);
    run.resolve(report);
    idle();
    try {
      deps.onFinished(report);
    } catch (error) {
      console.error('[splitbook] a sync.finished listener failed:', error);
    }
  }

  /** Every run and push still waiting on a thread that is gone ends now, with the reason. */
  function abandon(problem: Problem): void {
    for (const storeId of [...runs.keys()]) finish(failedReport(storeId, problem));
    for (const reply of replies.values()) reply(null);
    replies.clear();
  }

  /** An idle thread does not keep the process alive; one with work does. */
  function idle(): void {
    if (worker && runs.size === 0 && replies.size === 0) worker.unref();
  }

  async function answerKey(message: Extract<FromThread, { type: 'key' }>): Promise<void> {
    let reply: ToThread;
    try {
      reply = {
        type: 'key',
        id: message.id,
        key: await deps.keys.get(message.storeId, message.storeName),
        problem: null,
      };
    } catch (error) {
      const problem =
        error instanceof ProblemError
          ? error.problem
          : threadProblem(error instanceof Error ? error.message : String(error));
      reply = { type: 'key', id: message.id, key: null, problem };
    }
    worker?.postMessage(reply);
  }

  function onMessage(message: FromThread): void {
    switch (message.type) {
      case 'progress': {
        const run = runs.get(message.progress.storeId);
        if (run) run.progress = message.progress;
        deps.onProgress(message.progress);
        break;
      }
      case 'finished':
        finish(message.report);
        break;
      case 'editsChanged':
        deps.onEditsChanged?.(message.storeId);
        break;
      case 'pushed':
      case 'cancelledAll': {
        const reply = replies.get(message.id);
        replies.delete(message.id);
        reply?.(message.type === 'pushed' ? message.summary : null);
        idle();
        break;
      }
      case 'key':
        void answerKey(message);
        break;
      case 'unusable':
        unusable = message.problem;
        abandon(message.problem);
        break;
    }
  }

  function thread(): Worker {
    if (worker) {
      worker.ref();
      return worker;
    }
    const started = new Worker(deps.thread.file, {
      workerData: deps.init,
      execArgv: deps.thread.execArgv,
    });
    started.on('message', onMessage);
    started.on('error', (error) => {
      console.error('[splitbook] the sync thread failed:', error);
    });
    started.on('exit', (code) => {
      if (worker === started) worker = null;
      // A thread that ends with work in hand crashed (or was never able to start): say so, and let
      // the next sync start a new one.
      abandon(
        threadProblem(
          closed
            ? 'Splitbook is closing.'
            : `The sync thread ended (exit code ${code}). Sync again to retry.`,
        ),
      );
    });
    worker = started;
    return started;
  }

  function send(message: ToThread): void {
    thread().postMessage(message);
  }

  function request(message: (id: number) => ToThread): Promise<PushSummary | null> {
    if (closed) return Promise.resolve(null);
    const id = nextId++;
    return new Promise((resolve) => {
      replies.set(id, resolve);
      send(message(id));
    });
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
      let resolve: (report: SyncReport) => void = () => undefined;
      const done = new Promise<SyncReport>((r) => (resolve = r));
      runs.set(storeId, { progress: null, done, resolve });
      send({ type: 'run', storeId });
      return done;
    },
    isRunning: (storeId) => runs.has(storeId),
    progress: (storeId) => runs.get(storeId)?.progress ?? null,
    cancel(storeId) {
      if (!runs.has(storeId)) return false;
      worker?.postMessage({ type: 'cancel', storeId } satisfies ToThread);
      return true;
    },
    async whenIdle(storeId) {
      await Promise.allSettled([runs.get(storeId)?.done, pushes.get(storeId)]);
    },
    async cancelAll() {
      if (!worker) return;
      await request((id) => ({ type: 'cancelAll', id }));
    },
    push(storeId) {
      const pushed = request((id) => ({ type: 'push', id, storeId }));
      pushes.set(storeId, pushed);
      void pushed.then(() => {
        if (pushes.get(storeId) === pushed) pushes.delete(storeId);
      });
      return pushed;
    },
    async close() {
      if (closed) return;
      if (worker) await request((id) => ({ type: 'cancelAll', id }));
      closed = true;
      // The thread may have ended meanwhile (a crash): then there is nothing left to close.
      const current = worker;
      if (!current) return;
      const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
      current.postMessage({ type: 'close' } satisfies ToThread);
      // A thread that does not end on its own (a socket held open) is stopped after its cache closed.
      const timer = setTimeout(() => void current.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
