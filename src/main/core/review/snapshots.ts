// The sync's one hook into the review memory: after a pull, compares each test with what was last
// recorded and appends a compact snapshot only when something material changed.
import {
  hasTrackedState,
  markCompacted,
  refreshReviewEnds,
  storeMark,
  thinDriftSnapshots,
  touchTrackedState,
  trackedTests,
  writeSnapshot,
  type TrackedRow,
} from '../db/history/review';
import { hasUserData } from '../db/user/attached';
import type { Db } from '../db/types';
import { metaOf } from '../db/user/sent-edits';
import { DRIFT_FIELDS, Tracked, diffTracked, roundFigure, type TestState } from './state';

/** Snapshots younger than this are all kept; older drift-only ones are thinned to one a week. */
export const KEEP_ALL_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export type SnapshotOutcome = { written: number; thinned: number };

/**
 * Records what changed in one store since the last sync. The first time a store is seen, every test
 * gets a baseline snapshot (a starting point, not a change). Nothing is written when nothing changed.
 */
export function recordSnapshots(db: Db, storeId: string, at: string): SnapshotOutcome {
  if (!hasUserData(db)) return { written: 0, thinned: 0 };
  return db
    .transaction(() => {
      const baseline = !hasTrackedState(db, storeId);
      let written = 0;
      for (const row of trackedTests(db, storeId)) {
        const before = row.state === null ? null : parseTracked(row.state);
        const after = trackedFrom(row, before);
        const changes = before
          ? diffTracked(before, after)
          : baseline
            ? {}
            : { added: [null, after.state.status] as [null, string] };
        if (before && Object.keys(changes).length === 0) {
          if (row.resultsFetchedAt !== row.stateResultsFetchedAt) {
            touchTrackedState(db, storeId, row.id, row.resultsFetchedAt);
          }
          continue;
        }
        const isBaseline = before === null && baseline;
        writeSnapshot(db, {
          storeId,
          testId: row.id,
          at,
          baseline: isBaseline,
          // A baseline is never drift: thinning must not take a test's starting point.
          drift: !isBaseline && Object.keys(changes).every((field) => isDrift(field)),
          probabilityToWin: after.state.probabilityToWin,
          state: JSON.stringify(after.state),
          changes: JSON.stringify(changes),
          resultsFetchedAt: row.resultsFetchedAt,
          tracked: JSON.stringify(after),
        });
        written += 1;
      }
      return { written, thinned: compact(db, storeId, at) };
    })
    .immediate();
}

function compact(db: Db, storeId: string, at: string): number {
  const until = new Date(Date.parse(at) - KEEP_ALL_DAYS * DAY_MS).toISOString();
  const from = storeMark(db, storeId).compactedUntil ?? '';
  if (until <= from) return 0;
  // Back one week, so the week straddling the last boundary is thinned whole.
  const start = from === '' ? '' : new Date(Date.parse(from) - 7 * DAY_MS).toISOString();
  const thinned = thinDriftSnapshots(db, storeId, start, until);
  // A thinned snapshot may have been the mark's end of a test's review window.
  if (thinned > 0) refreshReviewEnds(db, storeId);
  markCompacted(db, storeId, until);
  return thinned;
}

const DRIFT: ReadonlySet<string> = new Set(DRIFT_FIELDS);
function isDrift(field: string): boolean {
  return DRIFT.has(field);
}

function parseTracked(json: string): Tracked | null {
  try {
    const parsed = Tracked.safeParse(JSON.parse(json));
    return parsed.success ? (parsed.data as Tracked) : null;
  } catch {
    return null;
  }
}

function trackedFrom(row: TrackedRow, before: Tracked | null): Tracked {
  const parts = row.resultsFetchedAt === null ? null : readParts(row.resultsParts);
  // Results not fetched again since the last state: its per-side and per-goal figures still hold.
  const unchanged = row.resultsParts === null && row.resultsFetchedAt !== null;
  const state: TestState = {
    status: row.status,
    stage: row.stage,
    removed: row.removed === 1,
    tier: row.tier,
    tiers: unchanged ? (before?.state.tiers ?? {}) : (parts?.tiers ?? {}),
    leader: row.leader,
    probabilityToWin: roundFigure(row.probabilityToWin),
    lift: roundFigure(row.lift),
    visitorsControl: unchanged ? (before?.state.visitorsControl ?? null) : (parts?.control ?? null),
    visitorsVariant: unchanged ? (before?.state.visitorsVariant ?? null) : (parts?.variant ?? null),
  };
  return { state, meta: metaOf(row) };
}

function readParts(
  json: string | null,
): { control: number | null; variant: number | null; tiers: Record<string, string> } | null {
  if (json === null) return null;
  try {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed)) return null;
    const [control, variant, byGoal] = parsed as unknown[];
    const tiers: Record<string, string> = {};
    if (byGoal && typeof byGoal === 'object') {
      for (const [goal, lifecycle] of Object.entries(byGoal)) {
        const tier: unknown = (lifecycle as { tier?: unknown } | null)?.tier;
        if (typeof tier === 'string') tiers[goal] = tier;
      }
    }
    return {
      control: typeof control === 'number' ? control : null,
      variant: typeof variant === 'number' ? variant : null,
      tiers,
    };
  } catch {
    return null;
  }
}
