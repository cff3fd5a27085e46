// How a failure during a sync becomes the run's outcome and the problem the user sees.
import type { Problem } from '#shared/problem';
import { appProblem, PROBLEM_TYPES, ProblemError } from '#shared/problem';
import type { SyncOutcome } from '#shared/contract/index';
import { ApiError } from '../api/errors';
import { storageProblem } from '../db/storage-errors';

export interface ClassifiedFailure {
  outcome: SyncOutcome;
  problem: Problem | null;
}

/** Offline and cancel are outcomes of their own: they say nothing is wrong with the store. */
export function classifyFailure(error: unknown): ClassifiedFailure {
  if (error instanceof ApiError) {
    if (error.kind === 'aborted') return { outcome: 'cancelled', problem: null };
    const p = error.toProblem();
    return { outcome: p.type === PROBLEM_TYPES.offline ? 'offline' : 'error', problem: p };
  }
  if (error instanceof ProblemError) {
    return {
      outcome: error.problem.type === PROBLEM_TYPES.offline ? 'offline' : 'error',
      problem: error.problem,
    };
  }
  if (error instanceof Error && error.name === 'AbortError')
    return { outcome: 'cancelled', problem: null };
  // Disk and cache failures (full, read-only, corrupt, I/O) are named in one place.
  const storage = storageProblem(error);
  if (storage) return { outcome: 'error', problem: storage };
  return {
    outcome: 'error',
    problem: appProblem(
      'internal',
      500,
      'Sync failed unexpectedly',
      error instanceof Error ? error.message : String(error),
    ),
  };
}

/** Errors that end the whole run rather than one record: the store cannot be reached or refuses us. */
export function isRunFatal(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return (
    ['network', 'timeout', 'aborted', 'unauthorized', 'rate-limited'].includes(error.kind) ||
    error.status === 403
  );
}
