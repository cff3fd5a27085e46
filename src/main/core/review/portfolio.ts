// The portfolio across every store and per store, and the `portfolio` report (one row per store plus a total).
import {
  OUTCOME_WINDOW_DAYS,
  type Portfolio,
  type PortfolioCount,
  type PortfolioFigures,
} from '#shared/contract/index';
import { isEnded } from '#shared/domain/lifecycle';
import { winRate } from '#shared/domain/programme/learnings';
import { listStoreRows } from '../db/cache/stores';
import { portfolioRows, type PortfolioRow } from '../db/cache/portfolio';
import type { Db } from '../db/types';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How many months the "started per month" chart spans, ending with the current month. */
export const STARTED_MONTHS = 12;

export type Outcome = 'won' | 'lost' | 'flat' | 'inconclusive';

/**
 * Splitbook's reading of a test from its call on the goal (the API states no outcome): see
 * OUTCOME_DEFINITION. Ship is won, keep the control lost, no meaningful difference flat; any other
 * call, or none, inconclusive.
 */
export function outcomeOf(row: { decision: string | null }): Outcome {
  switch (row.decision) {
    case 'ship':
      return 'won';
    case 'keep_control':
      return 'lost';
    case 'no_difference':
      return 'flat';
    default:
      return 'inconclusive';
  }
}

/** Ended (completed or cancelled) with an end date inside the window ending `now`. */
export function endedInWindow(row: PortfolioRow, now: number, days = OUTCOME_WINDOW_DAYS): boolean {
  if (!isEnded(row.status) || row.endAt === null) return false;
  const end = Date.parse(row.endAt);
  return Number.isFinite(end) && end <= now && end >= now - days * DAY_MS;
}

/**
 * A test's outcome in the window, as the Learnings count it: a concluding call made (its look's day)
 * in the window counts by that call, whatever the test's status now; an ended test without one,
 * ended in the window, is inconclusive; anything else is not in the window.
 */
export function outcomeInWindow(row: PortfolioRow, now: number, days = OUTCOME_WINDOW_DAYS): Outcome | null {
  const outcome = outcomeOf(row);
  if (outcome !== 'inconclusive') {
    const day = row.decidedOn === null ? Number.NaN : Date.parse(`${row.decidedOn}T00:00:00Z`);
    return Number.isFinite(day) && day <= now && day >= now - days * DAY_MS ? outcome : null;
  }
  return endedInWindow(row, now, days) ? 'inconclusive' : null;
}

export function portfolio(db: Db, now: number): Portfolio {
  const stores = listStoreRows(db);
  const months = monthKeys(now);
  const total = accumulator(months);
  const byStore = new Map(stores.map((s) => [s.id, accumulator(months)]));
  // One pass: each row is read once and added to its store's figures and to the total. Rows come by
  // store, so its figures are looked up once a store; tag lists repeat, so each is parsed once.
  const tagLists = new Map<string, string[]>();
  let own: Accumulator | undefined;
  let ownId: string | null = null;
  for (const row of portfolioRows(db)) {
    const seen = readRow(row, now, tagLists);
    add(total, seen);
    if (row.storeId !== ownId) {
      ownId = row.storeId;
      own = byStore.get(row.storeId);
    }
    if (own) add(own, seen);
  }
  return {
    asOf: new Date(now).toISOString(),
    windowDays: OUTCOME_WINDOW_DAYS,
    total: finish(null, 'All stores', total, months),
    stores: stores.map((s) =>
      finish(s.id, s.name, byStore.get(s.id) ?? accumulator(months), months),
    ),
  };
}

type Seen = {
  row: PortfolioRow;
  tags: string[];
  month: string | null;
  outcome: Outcome | null;
  days: number | null;
};

function readRow(row: PortfolioRow, now: number, tagLists: Map<string, string[]>): Seen {
  const ended = endedInWindow(row, now);
  const outcome = outcomeInWindow(row, now);
  let tags = tagLists.get(row.tagNames);
  if (tags === undefined) {
    tags = tagNames(row.tagNames);
    tagLists.set(row.tagNames, tags);
  }
  return {
    row,
    tags,
    month: row.startAt !== null && isStarted(row.status) ? row.startAt.slice(0, 7) : null,
    outcome,
    days: ended ? durationDays(row) : null,
  };
}

type Accumulator = ReturnType<typeof accumulator>;

function accumulator(months: readonly string[]) {
  return {
    tests: 0,
    running: 0,
    statuses: new Map<string, { label: string; count: number }>(),
    campaigns: new Map<string, { label: string; count: number }>(),
    tags: new Map<string, { label: string; count: number }>(),
    areas: new Map<string, { label: string; count: number }>(),
    ended: { won: 0, lost: 0, flat: 0, inconclusive: 0, total: 0 },
    durations: [] as number[],
    winnersRevenue: 0,
    started: new Map(months.map((m) => [m, 0])),
  };
}

function add(a: Accumulator, { row, tags, month, outcome, days }: Seen): void {
  a.tests += 1;
  bump(a.statuses, row.status, row.status);
  if (row.status === 'active') a.running += 1;
  if (row.campaignId !== null)
    bump(a.campaigns, row.campaignId, row.campaignName ?? row.campaignId);
  for (const tag of tags) bump(a.tags, tag.toLowerCase(), tag);
  bump(a.areas, row.surfaceArea ?? '', row.surfaceArea ?? 'Not set');
  if (month !== null) {
    const n = a.started.get(month);
    if (n !== undefined) a.started.set(month, n + 1);
  }
  if (outcome !== null) {
    a.ended[outcome] += 1;
    a.ended.total += 1;
    if (outcome === 'won') a.winnersRevenue += row.changeRevenue ?? 0;
  }
  if (days !== null) a.durations.push(days);
}

function finish(
  storeId: string | null,
  storeName: string,
  a: Accumulator,
  months: readonly string[],
): PortfolioFigures {
  return {
    storeId,
    storeName,
    tests: a.tests,
    byStatus: counts(a.statuses),
    running: a.running,
    ended: a.ended,
    winRate: winRate({ ship: a.ended.won, keepControl: a.ended.lost, noDifference: a.ended.flat }),
    medianDurationDays: median(a.durations),
    startedPerMonth: months.map((month) => ({ month, count: a.started.get(month) ?? 0 })),
    // Per store only: stores may sell in different currencies, so a sum across them means nothing.
    winnersChangeRevenue: storeId === null ? null : a.winnersRevenue,
    byCampaign: counts(a.campaigns),
    byTag: counts(a.tags),
    bySurfaceArea: counts(a.areas),
  };
}

/** A test with a start date that left draft/scheduled counts as started in its start month. */
function isStarted(status: string): boolean {
  return status !== 'draft' && status !== 'scheduled' && status !== 'incompatible';
}

function bump(map: Map<string, { label: string; count: number }>, key: string, label: string) {
  const entry = map.get(key);
  if (entry) entry.count += 1;
  else map.set(key, { label, count: 1 });
}

function counts(map: Map<string, { label: string; count: number }>): PortfolioCount[] {
  return [...map]
    .map(([key, { label, count }]) => ({ key, label, count }))
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
}

function tagNames(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function durationDays(row: { startAt: string | null; endAt: string | null }): number | null {
  if (row.startAt === null || row.endAt === null) return null;
  const days = (Date.parse(row.endAt) - Date.parse(row.startAt)) / DAY_MS;
  return Number.isFinite(days) && days >= 0 ? days : null;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value =
    sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return value ?? null;
}

function monthKeys(now: number): string[] {
  const date = new Date(now);
  const keys: string[] = [];
  for (let back = STARTED_MONTHS - 1; back >= 0; back--) {
    const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - back, 1));
    keys.push(d.toISOString().slice(0, 7));
  }
  return keys;
}

// ---------- the `portfolio` report ----------

export type ReportValue = string | number | null;

/** The report's columns, in order. */
export const PORTFOLIO_COLUMNS = [
  'store_id',
  'store',
  'tests',
  'running',
  'counted_90d',
  'won',
  'lost',
  'inconclusive',
  'win_rate',
  'median_duration_days',
  'winners_change_revenue',
  'flat',
] as const;

function reportRow(f: PortfolioFigures): ReportValue[] {
  return [
    f.storeId ?? '',
    f.storeName,
    f.tests,
    f.running,
    f.ended.total,
    f.ended.won,
    f.ended.lost,
    f.ended.inconclusive,
    f.winRate === null ? null : round(f.winRate, 4),
    f.medianDurationDays === null ? null : round(f.medianDurationDays, 1),
    f.winnersChangeRevenue === null ? null : round(f.winnersChangeRevenue, 2),
    f.ended.flat,
  ];
}

/**
 * The `portfolio` report: the header, one row per store, then a total row ("All stores") whose
 * counts add up, whose win rate and median are over every store's tests, and whose revenue is
 * empty (stores may use different currencies). A generator of plain rows, for the reports registry.
 */
export function* portfolioReport(db: Db, now: number): Generator<ReportValue[]> {
  const p = portfolio(db, now);
  yield [...PORTFOLIO_COLUMNS];
  for (const store of p.stores) yield reportRow(store);
  yield reportRow(p.total);
}

function round(value: number, places: number): number {
  const f = 10 ** places;
  return Math.round(value * f) / f;
}
