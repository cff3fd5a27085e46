// Calls being made again in the background (a settings change over thousands of tests takes seconds):
// what decisions.progress says while it lasts, for the status bar.
import type { DecisionsProgress } from '#shared/contract/index';
import { getBridge } from '../lib/bridge';

class CallsProgress {
  /** The refresh under way, once it has taken over a second; null when there is none. */
  current = $state.raw<DecisionsProgress | null>(null);
}

export const callsProgress = new CallsProgress();

/** Follows decisions.progress; the last event of a refresh (every call made) clears it. Returns the unsubscribe. */
export function followCallsProgress(): () => void {
  return getBridge().on('decisions.progress', (progress) => {
    callsProgress.current = progress.done >= progress.total ? null : progress;
  });
}
