// Progress events of a sync, throttled so a 2,000-result phase does not flood the UI.
import type { SyncPhase, SyncProgress } from '#shared/contract/index';

export interface ProgressReporter {
  report(phase: SyncPhase, done: number, total: number | null): void;
  /** The last progress reported, for the store list while the run goes on. */
  current(): SyncProgress | null;
}

export function createProgressReporter(
  storeId: string,
  emit: (progress: SyncProgress) => void,
  clock: () => number,
  intervalMs = 100,
): ProgressReporter {
  let last: SyncProgress | null = null;
  let lastEmittedAt = Number.NEGATIVE_INFINITY;
  return {
    report(phase, done, total) {
      const phaseChanged = last?.phase !== phase;
      last = { storeId, phase, done, total };
      const now = clock();
      // First and last step of a phase always go out; steps between at most every intervalMs.
      if (phaseChanged || done === total || now - lastEmittedAt >= intervalMs) {
        lastEmittedAt = now;
        emit(last);
      }
    },
    current: () => last,
  };
}
