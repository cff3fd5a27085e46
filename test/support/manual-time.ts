// Test support: time the test moves by hand — the core's clock and the timers background syncs wait on —
// and a watch on a core's syncs, so a test advances minutes of schedule in milliseconds and waits for
// whatever the timers started to end before it looks.
import type { BackgroundTimers } from '#core/index';
import type { SyncReport } from '#shared/contract/index';
import type { Core } from '#core/types';

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

export class ManualTime implements BackgroundTimers {
  #now: number;
  #seq = 0;
  #timers = new Set<Timer>();

  constructor(start = Date.parse('2026-03-02T09:00:00.000Z')) {
    this.#now = start;
  }

  readonly now = (): number => this.#now;

  setTimeout(callback: () => void, ms: number): unknown {
    const timer: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, callback };
    this.#timers.add(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as Timer);
  }

  /** When the earliest timer is due, or null when none waits. */
  nextAt(): number | null {
    let next: number | null = null;
    for (const timer of this.#timers) if (next === null || timer.at < next) next = timer.at;
    return next;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way in time order; after each, `settle`
   * waits for the work it started (syncs over real HTTP) to end before time moves on.
   */
  async advance(ms: number, settle: () => Promise<void> = settleTicks): Promise<void> {
    const until = this.#now + ms;
    for (;;) {
      await settle();
      const due = [...this.#timers]
        .filter((timer) => timer.at <= until)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#timers.delete(due);
      this.#now = Math.max(this.#now, due.at);
      due.callback();
    }
    this.#now = until;
    await settle();
  }
}

/** Lets pending callbacks run. */
export async function settleTicks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Every sync a core starts and ends, and a wait for none to be running. */
export function watchSyncs(core: Core) {
  const running = new Set<string>();
  const started: { storeIds: string[]; background: boolean }[] = [];
  const finished: SyncReport[] = [];
  const stop = core.subscribe((event) => {
    if (event.name === 'sync.started') {
      started.push({
        storeIds: event.payload.storeIds,
        background: event.payload.background ?? false,
      });
      for (const id of event.payload.storeIds) running.add(id);
    } else if (event.name === 'sync.finished') {
      finished.push(event.payload);
      running.delete(event.payload.storeId);
    }
  });
  return {
    started,
    finished,
    /** Background runs started, one entry per store. */
    backgroundRuns: () => started.filter((s) => s.background).flatMap((s) => s.storeIds),
    /** Resolves once no sync of this core runs and what follows a run's end (news, notices) is done. */
    async idle(): Promise<void> {
      await settleTicks();
      while (running.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await settleTicks();
    },
    stop,
  };
}
