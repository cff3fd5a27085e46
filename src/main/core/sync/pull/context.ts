// What every pull phase of one sync run works with.
import type { ApiClient } from '../../api';
import { setAside, type SetAsideInput } from '../../db/cache/set-aside';
import type { Db } from '../../db/types';
import type { ProgressReporter } from '../progress';

export interface RunCounters {
  requests: number;
  testsSeen: number;
  testsRemoved: number;
  resultsFetched: number;
  setAside: number;
  /** Set aside past SET_ASIDE_CAP_PER_RUN: counted, summarised in the run's problem, not stored. */
  setAsideNotListed: number;
}

/** A run's counters before it has done anything (also those of a run that could not start). */
export function noCounters(): RunCounters {
  return {
    requests: 0,
    testsSeen: 0,
    testsRemoved: 0,
    resultsFetched: 0,
    setAside: 0,
    setAsideNotListed: 0,
  };
}

/**
 * The most records one run of one store keeps in Sync issues. A server that sends a million bad
 * records must not grow the cache (or the Sync issues view) without bound: the rest are counted.
 */
export const SET_ASIDE_CAP_PER_RUN = 500;

const kept = new WeakMap<RunCounters, number>();

/** Keeps a record the run could not take, up to the cap; past it the record is only counted. */
export function keepAside(db: Db, counters: RunCounters, record: SetAsideInput): void {
  const soFar = kept.get(counters) ?? 0;
  if (soFar >= SET_ASIDE_CAP_PER_RUN) {
    counters.setAsideNotListed += 1;
    return;
  }
  kept.set(counters, soFar + 1);
  setAside(db, record);
}

export interface PhaseContext {
  db: Db;
  storeId: string;
  client: ApiClient;
  signal: AbortSignal;
  progress: ProgressReporter;
  counters: RunCounters;
  /** The run's clock as an ISO timestamp. */
  now(): string;
}
