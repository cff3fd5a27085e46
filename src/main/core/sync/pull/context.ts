// What every pull phase of one sync run works with.
import type { ApiClient } from '../../api';
import type { Db } from '../../db';
import type { ProgressReporter } from '../progress';

export interface RunCounters {
  requests: number;
  testsSeen: number;
  testsRemoved: number;
  resultsFetched: number;
  setAside: number;
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
