// The sync's results decoder: reads results answers (read-results.ts: JSON.parse, the schema, Brotli
// packing, the alerts and the call, about a fifth of the sync thread's work) on a thread of its own,
// so the sync thread keeps HTTP and the cache writes; the cache keeps one writer. Its effect at twenty
// stores is in docs/architecture.md ("The results decoder") and bench/sync-stores.bench.ts.
//
// The thread is started when a run begins (warm) or at the first answer, and ended when idle. A
// decoder thread that cannot start or dies is not a failed sync: what it had in hand, and all that
// follows, is read in place, by the same function on the same text.
import { Worker } from 'node:worker_threads';
import type { Decoded } from '../../api';
import type { PreparedResults, ResultsContext } from '../../decisions/results';
import { idleTimer } from '../../idle-timer';
import { readResults, type ReadResults } from './read-results';

/** Where the decoder thread's code is: the built file in the app, the TypeScript source under tsx. */
export interface DecoderThreadOptions {
  file: string;
  execArgv?: string[];
}

export interface ResultsDecoder {
  decode(text: string, context: ResultsContext): Promise<Decoded<PreparedResults>>;
  /**
   * Starts the thread ahead of the answers (a run's listing comes first), so none waits for it: under
   * tsx a thread takes about a second to start. It ends again if nothing comes.
   */
  warm(): void;
  /** Answers read so far on the decoder thread and in place (a thread that failed, or none). */
  counts(): { onThread: number; inPlace: number };
  /** Ends the thread, if one runs; later reads start it again. */
  close(): Promise<void>;
}

/** What the thread is sent, and what it answers (worker.ts). */
export type DecodeRequest = { id: number; text: string; context: ResultsContext };
/** The read, or why reading failed (a fault of Splitbook's, not of the answer: the request fails with it). */
export type DecodeAnswer =
  { id: number; decoded: Decoded<ReadResults> } | { id: number; error: string };

/** A thread that has read nothing for this long is ended: an idle app holds no second isolate. */
export const DECODER_IDLE_MS = 30_000;

/** Reads in place, on the calling thread: the in-process engine's, and the fallback of the threaded one. */
export function inPlaceDecoder(): ResultsDecoder {
  let inPlace = 0;
  return {
    decode: async (text, context) => {
      inPlace += 1;
      return withContext(readResults(text, context), context);
    },
    warm: () => undefined,
    counts: () => ({ onThread: 0, inPlace }),
    close: async () => undefined,
  };
}

function withContext(
  decoded: Decoded<ReadResults>,
  context: ResultsContext,
): Decoded<PreparedResults> {
  return decoded.kind === 'ok' ? { kind: 'ok', value: { ...decoded.value, context } } : decoded;
}

/** The packed bytes arrive as a plain Uint8Array: seen as the Buffer packJson made, without a copy. */
function asBuffer(decoded: Decoded<ReadResults>): Decoded<ReadResults> {
  if (decoded.kind !== 'ok') return decoded;
  const { packed } = decoded.value;
  const bytes = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  return { kind: 'ok', value: { ...decoded.value, packed: bytes } };
}

type Pending = {
  text: string;
  context: ResultsContext;
  resolve: (decoded: Decoded<PreparedResults>) => void;
  reject: (error: Error) => void;
};

export function threadDecoder(
  options: DecoderThreadOptions,
  idleMs: number = DECODER_IDLE_MS,
): ResultsDecoder {
  let worker: Worker | null = null;
  /** Set once a thread failed: every read from then on is made in place. */
  let broken = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const idle = idleTimer(idleMs, () => {
    if (pending.size === 0) void stop();
  });
  const counted = { onThread: 0, inPlace: 0 };

  function inPlace(item: Pending): void {
    counted.inPlace += 1;
    try {
      item.resolve(withContext(readResults(item.text, item.context), item.context));
    } catch (error) {
      item.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The thread is gone: what it had in hand is read here, and so is everything after. */
  function fail(reason: unknown): void {
    if (!broken)
      console.error('[splitbook] the results decoder stopped; reading in place:', reason);
    broken = true;
    worker = null;
    const left = [...pending.values()];
    pending.clear();
    for (const item of left) inPlace(item);
  }

  function start(): Worker {
    const started = new Worker(options.file, { execArgv: options.execArgv });
    // Never what keeps the sync thread alive: a run waiting on a read holds it by its own I/O.
    started.unref();
    started.on('message', (answer: DecodeAnswer) => {
      const item = pending.get(answer.id);
      if (!item) return;
      pending.delete(answer.id);
      counted.onThread += 1;
      if ('error' in answer) item.reject(new Error(answer.error));
      else item.resolve(withContext(asBuffer(answer.decoded), item.context));
      if (pending.size === 0) idle.arm();
    });
    started.on('error', fail);
    started.on('exit', (code) => {
      if (worker === started) fail(new Error(`exit code ${code}`));
    });
    return started;
  }

  async function stop(): Promise<void> {
    const ending = worker;
    worker = null;
    if (ending) await ending.terminate();
  }

  /** The running thread, started if need be; null once a thread failed (then reads are made in place). */
  function running(): Worker | null {
    if (broken) return null;
    try {
      worker ??= start();
    } catch (error) {
      fail(error);
    }
    return worker;
  }

  return {
    decode(text, context) {
      return new Promise((resolve, reject) => {
        const item: Pending = { text, context, resolve, reject };
        const thread = running();
        if (!thread) return inPlace(item);
        idle.disarm();
        const id = nextId++;
        pending.set(id, item);
        thread.postMessage({ id, text, context } satisfies DecodeRequest);
      });
    },
    warm() {
      if (running() && pending.size === 0) idle.arm();
    },
    counts: () => ({ ...counted }),
    async close() {
      idle.disarm();
      await stop();
      // A read sent before the close still gets its answer.
      const left = [...pending.values()];
      pending.clear();
      for (const item of left) inPlace(item);
    },
  };
}
