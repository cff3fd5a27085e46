// One store's request gate: caps concurrency, paces to the server's rate limit, pauses the whole store on 429.
import { sleep as realSleep } from './backoff';

export interface RequestLimiterOptions {
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** A known rate limit to pace at (requests per second); null when unknown, then it is learnt from 429s. */
  ratePerSecond?: number | null;
  /**
   * A pace learnt in an earlier run (requests per second): the limiter starts there instead of
   * cold, and keeps probing above it, since the store's limit may have risen. Ignored with `ratePerSecond`.
   */
  startRatePerSecond?: number | null;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface LimiterStats {
  /** Requests let through. */
  requests: number;
  /** Requests answered 429. */
  throttled: number;
  /** Total time the store was paused by 429s. */
  pausedMs: number;
  /** The pace in force, or null while no limit has been met. */
  ratePerSecond: number | null;
  /**
   * The pace set at the last 429 (just under what the server was measured to let through), before
   * any probing above it: what a next run should start from. Null while no limit has been met.
   */
  settledRatePerSecond: number | null;
}

/** The right to send one request; report how it went exactly once. */
export interface Permit {
  /** The server answered (any status but 429). */
  answered(): void;
  /** The server answered 429: every request of the store waits `pauseMs`. */
  throttled(pauseMs: number): void;
  /** No answer (network error, timeout, abort): says nothing about the rate limit. */
  failed(): void;
}

export interface RequestLimiter {
  /** Waits for a slot; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<Permit>;
  /** How long the store stays paused by a 429, 0 when it is not. */
  pauseRemainingMs(): number;
  stats(): LimiterStats;
}

export function createRequestLimiter(options: RequestLimiterOptions = {}): RequestLimiter {
  return new AdaptiveLimiter(options);
}

/** After a 429 while pacing: back off by this factor (the "multiplicative decrease" of AIMD)… */
const DECREASE_FACTOR = 0.85;
/** …but never below this share of what the server was measured to let through. */
const MEASURED_SHARE = 0.97;
/** Probe upward by this share of the rate set at the last 429, once per second of backlog. */
const INCREASE_SHARE = 0.01;
/** Until the first 429 at a learnt pace, grow by this share per second: the first measurement can be far too low. */
const FAST_INCREASE_SHARE = 0.2;
const INCREASE_INTERVAL_MS = 1000;
/** A measurement over less time than this is mostly noise. */
const MIN_MEASURE_MS = 250;
const MIN_RATE = 0.1;

interface Waiter {
  grant(permit: Permit): void;
  detach(): void;
}

/**
 * AIMD pacing learnt from the server's token bucket. Between two 429s the bucket went from
 * empty to empty, so what it let through in that time is at most its refill rate (less when
 * tokens overflowed a full bucket). The limiter starts pacing just below that measurement,
 * grows fast until the next 429, then stays just under the limit: -15% on a 429 (never below
 * the measurement), +1% a second while requests wait.
 *
 * A 429 pauses every request of the store until Retry-After, so parallel requests do not each
 * run into the wall; 429s of requests let through before that pause began belong to the same
 * event and are not counted twice.
 */
class AdaptiveLimiter implements RequestLimiter {
  readonly #concurrency: number;
  readonly #ceiling: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  readonly #queue: Waiter[] = [];
  #active = 0;
  #rate: number | null;
  #rateAtEvent: number | null;
  #growth: 'fast' | 'slow' = 'slow';
  #nextAt = 0;
  #pausedUntil = 0;
  #lastEventAt: number | null = null;
  /** Counts congestion events, so a permit knows whether a 429 it gets is news. */
  #epoch = 0;
  #answeredSinceEvent = 0;
  #lastIncreaseAt = 0;
  #wake: { at: number; controller: AbortController } | null = null;
  readonly #stats = { requests: 0, throttled: 0, pausedMs: 0 };

  constructor(options: RequestLimiterOptions) {
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError('concurrency must be a positive integer');
    const known = options.ratePerSecond ?? null;
    const start = options.startRatePerSecond ?? null;
    if (known !== null && !(known > 0))
      throw new RangeError('ratePerSecond must be positive or null');
    if (start !== null && !(start > 0))
      throw new RangeError('startRatePerSecond must be positive or null');
    const rate = known ?? start;
    this.#concurrency = concurrency;
    this.#rate = rate;
    this.#rateAtEvent = rate;
    // A rate the caller knows is a ceiling: probing above it would only earn 429s. A learnt one is not.
    this.#ceiling = known ?? Infinity;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? realSleep;
  }

  acquire(signal?: AbortSignal): Promise<Permit> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Permit>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        reject(signal?.reason);
        this.#pump();
      };
      const waiter: Waiter = {
        grant: resolve,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  pauseRemainingMs(): number {
    return Math.max(0, this.#pausedUntil - this.#now());
  }

  stats(): LimiterStats {
    return { ...this.#stats, ratePerSecond: this.#rate, settledRatePerSecond: this.#rateAtEvent };
  }

  /** Lets waiting requests through while concurrency, pause and pace allow; else sets a wake-up. */
  #pump(): void {
    if (this.#queue.length === 0) {
      this.#cancelWake();
      return;
    }
    while (this.#queue.length > 0 && this.#active < this.#concurrency) {
      const t = this.#now();
      const gate = Math.max(this.#pausedUntil, this.#nextAt);
      if (t < gate) {
        this.#wakeAt(gate);
        return;
      }
      const waiter = this.#queue.shift();
      if (!waiter) return;
      waiter.detach();
      this.#active += 1;
      this.#stats.requests += 1;
      this.#pace(t);
      waiter.grant(this.#permit(this.#epoch));
    }
  }

  #pace(t: number): void {
    if (this.#rate === null) return;
    const interval = 1000 / this.#rate;
    // One interval of slack absorbs late timers, which would otherwise slow the pace below the rate.
    this.#nextAt = Math.max(this.#nextAt, t - interval) + interval;
    const backlogged = this.#queue.length > 0 && this.#active < this.#concurrency;
    if (backlogged && t - this.#lastIncreaseAt >= INCREASE_INTERVAL_MS) {
      this.#lastIncreaseAt = t;
      const step =
        this.#growth === 'fast'
          ? FAST_INCREASE_SHARE * this.#rate
          : INCREASE_SHARE * (this.#rateAtEvent ?? this.#rate);
      this.#rate = Math.min(this.#ceiling, this.#rate + step);
    }
  }

  #permit(epoch: number): Permit {
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      this.#active -= 1;
      return true;
    };
    return {
      answered: () => {
        if (!settle()) return;
        this.#answeredSinceEvent += 1;
        this.#pump();
      },
      throttled: (pauseMs) => {
        if (!settle()) return;
        this.#onThrottled(epoch, pauseMs);
        this.#pump();
      },
      failed: () => {
        if (settle()) this.#pump();
      },
    };
  }

  #onThrottled(epoch: number, pauseMs: number): void {
    const t = this.#now();
    this.#stats.throttled += 1;
    this.#pauseUntil(t + Math.max(0, pauseMs));
    // Sent before the last 429 was known: the same congestion, already accounted for.
    if (epoch < this.#epoch) return;

    const elapsed = this.#lastEventAt === null ? 0 : t - this.#lastEventAt;
    const measured = elapsed >= MIN_MEASURE_MS ? (this.#answeredSinceEvent * 1000) / elapsed : null;
    if (this.#rate === null) {
      // The first 429 only says a limit exists; the second one, with the first, measures it.
      if (measured !== null) {
        this.#rate = Math.max(MIN_RATE, measured * MEASURED_SHARE);
        this.#growth = 'fast';
      }
    } else {
      const floor = measured === null ? 0 : measured * MEASURED_SHARE;
      const next = Math.min(
        this.#rate * MEASURED_SHARE,
        Math.max(this.#rate * DECREASE_FACTOR, floor),
      );
      this.#rate = Math.max(MIN_RATE, Math.min(this.#ceiling, next));
      this.#growth = 'slow';
    }
    this.#rateAtEvent = this.#rate;
    this.#epoch += 1;
    this.#lastEventAt = t;
    this.#lastIncreaseAt = t;
    this.#answeredSinceEvent = 0;
  }

  #pauseUntil(until: number): void {
    const from = Math.max(this.#now(), this.#pausedUntil);
    if (until <= from) return;
    this.#stats.pausedMs += until - from;
    this.#pausedUntil = until;
  }

  #wakeAt(at: number): void {
    if (this.#wake && this.#wake.at <= at) return;
    this.#cancelWake();
    const controller = new AbortController();
    this.#wake = { at, controller };
    this.#sleep(at - this.#now(), controller.signal).then(
      () => {
        if (this.#wake?.controller !== controller) return;
        this.#wake = null;
        this.#pump();
      },
      () => undefined,
    );
  }

  #cancelWake(): void {
    this.#wake?.controller.abort();
    this.#wake = null;
  }
}
