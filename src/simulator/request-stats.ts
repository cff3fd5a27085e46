// Request log and counters: totals per route and status, 429s, injected faults, peak request rate.
import type { FaultKind } from './faults';

export type SimulatorStats = {
  requests: number;
  /** Counts per route ('GET /tests/{id}') and status ('200'); status 0 is a reset connection (no response). */
  byRoute: Record<string, Record<string, number>>;
  byStatus: Record<string, number>;
  rateLimited: number;
  faults: Record<FaultKind, number>;
  /** Most requests seen within any one second of the simulator's clock. */
  maxRequestsPerSecond: number;
};

/** What the per-request hook sees: never the API key. `status` 0 means the connection was reset. */
export type RequestLogEntry = { method: string; path: string; status: number; ms: number };

export type RequestRecord = { route: string; status: number; fault: FaultKind | null; at: number };

function emptyStats(): SimulatorStats {
  return {
    requests: 0,
    byRoute: {},
    byStatus: {},
    rateLimited: 0,
    faults: { error: 0, reset: 0, truncate: 0, malformed: 0 },
    maxRequestsPerSecond: 0,
  };
}

export function createRequestStats() {
  let stats = emptyStats();
  let window: number[] = [];
  return {
    record({ route, status, fault, at }: RequestRecord) {
      stats.requests += 1;
      const perRoute = (stats.byRoute[route] ??= {});
      perRoute[status] = (perRoute[status] ?? 0) + 1;
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
      if (status === 429) stats.rateLimited += 1;
      if (fault !== null) stats.faults[fault] += 1;
      window = window.filter((time) => time > at - 1000);
      window.push(at);
      stats.maxRequestsPerSecond = Math.max(stats.maxRequestsPerSecond, window.length);
    },
    snapshot: (): SimulatorStats => structuredClone(stats),
    reset() {
      stats = emptyStats();
      window = [];
    },
  };
}
export type RequestStats = ReturnType<typeof createRequestStats>;
