// What the sync thread (worker.ts) and the core on the main thread (engine.ts) say to each other over
// the worker's port: two small method tables, called and answered through link.ts, and a few events.
import type { SyncProgress, SyncReport } from '#shared/contract/index';
import { appProblem, type Envelope, type Problem } from '#shared/problem';
import type { ListsExactly } from '#shared/rpc';
import type { PushSummary } from '../../outbox';
import type { DecoderThreadOptions } from '../decode/decoder';

/** What the sync thread needs to open the same files the core has open. */
export interface SyncThreadInit {
  cacheFile: string;
  userDataFile: string;
  dataDir: string;
  perPage?: number;
  resultsConcurrency?: number;
  /** Simulator settings of the demo store: the thread serves it, since only syncs talk to it. */
  demo?: { tests?: number; seed?: number };
  /**
   * A core on a clock of its own (the tests' simulated or hand-moved time): its reading in ms, one
   * BigInt64 the main thread writes before each message it sends, so a run sees the time it was asked
   * at, as an in-process run on a frozen clock would. Absent on the system clock, which the thread reads.
   */
  clock?: SharedArrayBuffer;
  /** Where the results decoder's code is (sync/decode); without it the thread reads answers itself. */
  decoder?: DecoderThreadOptions;
}

/** Where the sync thread's code is: the built file in the app, the TypeScript source under tsx. */
export interface SyncThreadOptions {
  file: string;
  execArgv?: string[];
  /** The results decoder thread the sync thread starts (sync/decode), built or under tsx like it. */
  decoder?: DecoderThreadOptions;
}

/** What the thread serves: the sync engine's calls (sync/run.ts), one input each. */
export type ThreadMethods = {
  engine: {
    /** Resolves with the run's report when it ends: the report is the answer, not an event. */
    run(storeId: string): Promise<SyncReport>;
    cancel(storeId: string): Promise<boolean>;
    cancelAll(): Promise<void>;
    push(storeId: string): Promise<PushSummary | null>;
  };
};

/** What the main thread serves: a store's key, since the keychain stays with the main thread. */
export type MainMethods = {
  keys: { get(store: { storeId: string; storeName: string }): Promise<string> };
};

export const THREAD_METHODS = { engine: ['run', 'cancel', 'cancelAll', 'push'] } as const;
export const MAIN_METHODS = { keys: ['get'] } as const;
const threadListed: ListsExactly<ThreadMethods, typeof THREAD_METHODS> = true;
const mainListed: ListsExactly<MainMethods, typeof MAIN_METHODS> = true;
void threadListed;
void mainListed;

/** A call of the other side's table and its answer, matched by id in link.ts alone. */
export type LinkMessage =
  | { type: 'call'; id: number; channel: string; input: unknown }
  | { type: 'answer'; id: number; answer: Envelope<unknown> };

export type ToThread = LinkMessage | { type: 'close' };

export type FromThread =
  | LinkMessage
  | { type: 'progress'; progress: SyncProgress }
  | { type: 'editsChanged'; storeId: string }
  /** The thread could not open the cache: every run it is asked for ends with this problem. */
  | { type: 'unusable'; problem: Problem };

/** A thread that ended, could not start or failed inside: the problem its runs end with. */
export function threadProblem(detail: string): Problem {
  return appProblem('internal', 500, 'The sync stopped unexpectedly', detail);
}
