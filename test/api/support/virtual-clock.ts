// Virtual time for the limiter: `sleep` waits on a timeline the test advances, so minutes of pacing run in milliseconds.

interface Timer {
  at: number;
  seq: number;
  fire(): void;
}

export class VirtualClock {
  #t = 0;
  #seq = 0;
  #timers: Timer[] = [];

  readonly now = (): number => this.#t;

  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer: Timer = { at: this.#t + Math.max(0, ms), seq: this.#seq++, fire: resolve };
      this.#timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.#timers = this.#timers.filter((t) => t !== timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });

  /** Fires timers in time order until `until` (virtual ms) or until nothing is left to fire. */
  async runUntil(until: number): Promise<void> {
    for (;;) {
      await settle();
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers[0];
      if (!next || next.at > until) break;
      this.#timers.shift();
      this.#t = Math.max(this.#t, next.at);
      next.fire();
    }
    this.#t = Math.max(this.#t, until);
  }
}

/** Lets every pending promise callback run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
