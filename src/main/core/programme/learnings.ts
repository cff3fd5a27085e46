// What concluded tests taught, from the calls kept in the cache: the figures of shared/domain/programme
// over a period, per store and across stores; each concluded test with the user's takeaway; and each
// shipped winner's yearly value, its lift shrunk toward the mean of its store's concluded tests.
import {
  TestFilter,
  type ConcludedTestRow,
  type ImpactRow,
  type Learnings,
  type ProgrammePriorView,
} from '#shared/contract/index';
import type { DecisionLook } from '#shared/domain/decisions/schemas';
import { metricOfGoal } from '#shared/domain/metrics';
import {
  CONCLUDING_CALLS,
  learnings,
  programmePrior,
  shrink,
  yearlyImpact,
  type ConcludedTest,
  type MeasuredLift,
  type ProgrammePrior,
  type ShrunkLift,
} from '#shared/domain/programme/index';
import { listStoreRows } from '../db/cache/stores';
import { noteKey } from '../db/user/notes';
import { readDecision } from '../db/cache/decisions';
import type { Db } from '../db/types';
import { takeawaysFor } from '../db/user/takeaways';
import { concludedRows } from '../db/cache/programme';
import { goalBaseline, storeTraffic } from '../decisions/store-traffic';

export const CONCLUDED_DEFINITION =
  'A test is concluded when Splitbook\u2019s call on its goal is \u201cShip the variant\u201d, \u201cKeep the control\u201d or ' +
  '\u201cNo meaningful difference\u201d (made with your decision settings; the API states no outcome). It belongs to the ' +
  'period of the day its call\u2019s data is from. Win rate: recommended to ship \u00f7 concluded (ship, keep the control or no difference). Days to decision: the day of the test ' +
  'the call was made on (1 = the launch day).';

export const IMPACT_NOTE =
  'The yearly value of a shipped winner is an estimate: its goal lift, shrunk toward the mean lift of its store\u2019s ' +
  'concluded tests (empirical Bayes, so a lucky winner is not taken at face value; a small test moves most of the way ' +
  'to the mean), \u00d7 the visitors a day a test at the store gets (its tests\u2019 last 28 days) \u00d7 365 \u00d7 the store\u2019s ' +
  'revenue per visitor (its tests\u2019 control sides). The goal\u2019s lift is read as a lift of revenue per visitor, which ' +
  'is an assumption unless the goal is revenue per visitor. Money is in the store\u2019s currency.';

/** A concluded test as read from the cache, with what the programme's arithmetic needs. */
export type ConcludedRecord = ConcludedTestRow & {
  seq: number;
  /** Its lift on the log scale with its standard error, from the call's look; null without a usable look. */
  measured: MeasuredLift | null;
};

const Z95 = 1.959963984540054;

/**
 * A look's lift on the log scale and its standard error: the look's interval is θ ± c·se with c its
 * boundary (1.96 when it has none), so se = (log(1 + high) − log(1 + low)) / 2c.
 */
export function measuredLift(look: DecisionLook): MeasuredLift | null {
  const c = look.boundary ?? Z95;
  const se = (Math.log1p(look.high) - Math.log1p(look.low)) / (2 * c);
  const theta = Math.log1p(look.lift);
  return Number.isFinite(theta) && Number.isFinite(se) && se > 0 ? { theta, se } : null;
}

/** Every concluded test `filter` keeps, whenever it concluded, in the store list's order. */
export function concludedRecords(db: Db, filter: TestFilter): ConcludedRecord[] {
  const rows = concludedRows(db, filter, CONCLUDING_CALLS);
  const takeaways = takeawaysFor(db, filter.storeId);
  return rows.flatMap((row): ConcludedRecord[] => {
    const decision = readDecision(db, row.seq);
    // The row and its full call are written together; a call this version cannot read is left out.
    if (decision === null || decision.call !== row.call) return [];
    const look = decision.look;
    const takeaway = takeaways.get(noteKey(row.storeId, row.testId));
    return [
      {
        seq: row.seq,
        storeId: row.storeId,
        storeName: row.storeName,
        testId: row.testId,
        title: row.title,
        status: row.status,
        goal: row.goal,
        call: decision.call,
        words: decision.words,
        lift: look?.lift ?? decision.goal?.lift ?? null,
        low: look?.low ?? null,
        high: look?.high ?? null,
        days: look?.day ?? null,
        decidedOn: look?.date ?? null,
        tags: tagNames(row.tagNames),
        surfaceArea: row.surfaceArea,
        implemented: row.implemented === null ? null : row.implemented === 1,
        takeaway: takeaway?.text ?? '',
        takeawayUpdatedAt: takeaway?.updatedAt ?? null,
        measured: look === null ? null : measuredLift(look),
      },
    ];
  });
}

function tagNames(json: string): string[] {
  try {
    const names = JSON.parse(json) as unknown;
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

export type Period = { since: string | null; until: string | null };

/** Whether a test's call falls in the period (a call of no known day only in an open-ended one). */
export function inPeriod(record: Pick<ConcludedTestRow, 'decidedOn'>, period: Period): boolean {
  if (period.since === null && period.until === null) return true;
  const day = record.decidedOn;
  if (day === null) return false;
  return (
    (period.since === null || day >= period.since) && (period.until === null || day <= period.until)
  );
}

/** The domain's view of a concluded test. */
export function asConcludedTest(record: ConcludedRecord): ConcludedTest {
  return {
    storeId: record.storeId,
    testId: record.testId,
    title: record.title,
    call: record.call,
    lift: record.lift,
    days: record.days,
    decidedOn: record.decidedOn,
    tags: record.tags,
    surfaceArea: record.surfaceArea,
    goal: record.goal,
  };
}

/** Each store's prior from every one of its concluded tests (whatever the period or other filters). */
export function storePriors(
  records: readonly ConcludedRecord[],
): Map<string, ProgrammePrior | null> {
  const lifts = new Map<string, MeasuredLift[]>();
  for (const record of records) {
    if (record.measured === null) continue;
    lifts.set(record.storeId, [...(lifts.get(record.storeId) ?? []), record.measured]);
  }
  const priors = new Map<string, ProgrammePrior | null>();
  for (const record of records) {
    if (!priors.has(record.storeId))
      priors.set(record.storeId, programmePrior(lifts.get(record.storeId) ?? []));
  }
  return priors;
}

export type Valuation = (
  storeId: string,
) => { dailyVisitors: number; revenuePerVisitor: number } | null;

/** What a store's winners are valued at: its traffic and revenue per visitor, read once per store. */
export function storeValuation(db: Db): Valuation {
  const known = new Map<string, { dailyVisitors: number; revenuePerVisitor: number } | null>();
  return (storeId) => {
    if (known.has(storeId)) return known.get(storeId) ?? null;
    const traffic = storeTraffic(db, storeId);
    const rpv = traffic === null ? null : goalBaseline(traffic, 'rpv');
    const value =
      traffic === null || rpv === null
        ? null
        : { dailyVisitors: traffic.dailyVisitors, revenuePerVisitor: rpv.baseline };
    known.set(storeId, value);
    return value;
  };
}

/** A shipped winner's row: its lift shrunk toward its store's prior and its yearly value; null without a measured lift. */
export function impactOf(
  record: ConcludedRecord,
  prior: ProgrammePrior | null,
  valuation: Valuation,
): ImpactRow | null {
  if (record.call !== 'ship' || record.measured === null) return null;
  const lift: ShrunkLift = shrink(record.measured, prior);
  const value = valuation(record.storeId);
  const shrunkFrom = prior?.tests ?? null;
  const base = {
    storeId: record.storeId,
    storeName: record.storeName,
    testId: record.testId,
    title: record.title,
    goal: record.goal,
    implemented: record.implemented,
    rawLift: lift.raw,
    shrunkLift: lift.shrunk,
    low: lift.low,
    high: lift.high,
    weight: lift.weight,
  };
  if (value === null) {
    return {
      ...base,
      yearly: null,
      dailyVisitors: null,
      revenuePerVisitor: null,
      assumptions: `${shrunkFrom === null ? 'lift as measured (too few concluded tests to shrink it)' : `lift shrunk toward the mean of ${shrunkFrom} concluded tests`}; no recent traffic or revenue per visitor at this store to value it by; an estimate, not a measurement`,
    };
  }
  const yearly = yearlyImpact({
    lift,
    dailyVisitors: value.dailyVisitors,
    revenuePerVisitor: value.revenuePerVisitor,
    goalIsRevenue: metricOfGoal(record.goal)?.rate === 'rpv',
    shrunkFrom,
  });
  return {
    ...base,
    yearly: { value: yearly.value, low: yearly.low, high: yearly.high },
    dailyVisitors: value.dailyVisitors,
    revenuePerVisitor: value.revenuePerVisitor,
    assumptions: yearly.assumptions,
  };
}

/** A record as the bridge shows it (no row key, no log-scale figures). */
function asRow({ seq: _seq, measured: _measured, ...row }: ConcludedRecord): ConcludedTestRow {
  return row;
}

/** Latest call first, then by title. */
function byLatest(a: ConcludedTestRow, b: ConcludedTestRow): number {
  return (b.decidedOn ?? '').localeCompare(a.decidedOn ?? '') || a.title.localeCompare(b.title);
}

/** The Learnings of one store (or every store) over a period, from the cache. */
export function learningsOf(
  db: Db,
  input: { storeId: string | null } & Period,
  now: number,
): Learnings {
  const stores = listStoreRows(db).filter((s) => input.storeId === null || s.id === input.storeId);
  const all = concludedRecords(db, TestFilter.parse({ storeId: input.storeId }));
  const priors = storePriors(all);
  const inScope = all.filter((record) => inPeriod(record, input));
  const valuation = storeValuation(db);
  const impact = inScope
    .flatMap((record) => impactOf(record, priors.get(record.storeId) ?? null, valuation) ?? [])
    .sort(
      (a, b) =>
        (b.yearly?.value ?? Number.NEGATIVE_INFINITY) -
          (a.yearly?.value ?? Number.NEGATIVE_INFINITY) || a.title.localeCompare(b.title),
    );
  const measuredCount = (storeId: string) =>
    all.filter((r) => r.storeId === storeId && r.measured !== null).length;
  return {
    storeId: input.storeId,
    since: input.since,
    until: input.until,
    asOf: new Date(now).toISOString(),
    definition: CONCLUDED_DEFINITION,
    figures: learnings(inScope.map(asConcludedTest)),
    stores: stores.map((store) => ({
      storeId: store.id,
      storeName: store.name,
      figures: learnings(inScope.filter((r) => r.storeId === store.id).map(asConcludedTest)),
    })),
    tests: inScope.map(asRow).sort(byLatest),
    impact,
    priors: stores.map((store): ProgrammePriorView => {
      const prior = priors.get(store.id) ?? null;
      return {
        storeId: store.id,
        storeName: store.name,
        meanLift: prior === null ? null : Math.expm1(prior.mean),
        spread: prior === null ? null : Math.sqrt(prior.between),
        tests: prior?.tests ?? measuredCount(store.id),
      };
    }),
    impactNote: IMPACT_NOTE,
  };
}
