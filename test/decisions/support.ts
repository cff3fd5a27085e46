// Results shaped to give a chosen decision: daily figures from a start date at a rate a side, totals that
// add up, and (for the readings) a store whose rates read differently from the simulator's.
import { TestResults, type SideStatistics, type Test } from '#shared/api/index';
import type { CoreEvent, EventPayload } from '#shared/contract/index';
import type { Decision } from '#shared/domain/decisions/index';
import type { Core } from '#core/types';
import { callJobs, type StaleCalls } from '#core/decisions/stale';
import { makeCall, type CallAnswer } from '#core/decisions/calls';
import { makeResults, stats } from '../db/fixtures';
import { allTestRows } from '../support/core';

const DAY_MS = 86_400_000;

export type Shape = {
  /** 'YYYY-MM-DD' of the first day. */
  start: string;
  days: number;
  /** Visitors a side a day. */
  visitors: number;
  /** Conversion rates (fractions). */
  control: number;
  variant: number;
};

/** The shapes that give each call on a conversion goal (checked by the tests that use them). */
export const SHAPES = {
  ship: { visitors: 3000, control: 0.03, variant: 0.04 },
  keepControl: { visitors: 3000, control: 0.04, variant: 0.03 },
  flat: { visitors: 100_000, control: 0.03, variant: 0.03 },
  tiny: { visitors: 20, control: 0.03, variant: 0.03 },
} as const;

/** A side's figures as some servers send them: cnv a count of conversions, ctr clicks per visitor (percent). */
export type Readings = 'simulator' | 'count-and-per-visitor';

function side(visitors: number, conversions: number, readings: Readings): SideStatistics {
  // Visits well above visitors, so a rate per visit and per visitor cannot be mistaken for one another.
  const s = { ...stats(visitors, conversions), visits: Math.round(visitors * 1.3) };
  const percent = (numerator: number, denominator: number) =>
    Math.round((numerator / denominator) * 100 * 1e4) / 1e4;
  const common = {
    ...s,
    cvr: percent(conversions, visitors),
    acr: percent(s.carts, visitors),
  };
  if (readings === 'count-and-per-visitor') {
    return { ...common, cnv: conversions, ctr: percent(s.clicks, visitors) };
  }
  // As the simulator sends them (src/simulator/metrics.ts): cnv and ctr per visit, in percent.
  return { ...common, cnv: percent(conversions, s.visits), ctr: percent(s.clicks, s.visits) };
}

/** Results of `days` days from `start`, each side at its rate; the totals are the days' sums. */
export function shapedResults(
  testId: string,
  shape: Shape,
  fields: Partial<TestResults> = {},
  readings: Readings = 'simulator',
): TestResults {
  const daily: TestResults['daily'] = {};
  let controlConversions = 0;
  let variantConversions = 0;
  const first = Date.parse(`${shape.start}T00:00:00Z`);
  for (let d = 0; d < shape.days; d++) {
    const date = new Date(first + d * DAY_MS).toISOString().slice(0, 10);
    const c = Math.round(shape.visitors * shape.control);
    const v = Math.round(shape.visitors * shape.variant);
    controlConversions += c;
    variantConversions += v;
    daily[date] = {
      performance: { control: stats(shape.visitors, c), variant: stats(shape.visitors, v) },
    };
  }
  const total = shape.visitors * shape.days;
  return TestResults.parse({
    ...makeResults(testId),
    totalVisitors: total * 2,
    control: side(total, controlConversions, readings),
    variant: side(total, variantConversions, readings),
    daily,
    ...fields,
  });
}

// ---------- a core over stores synced from the simulator ----------

/** Resolves with the next event `name` whose payload passes `match` (rejects after `ms`). */
export function nextEvent<N extends CoreEvent['name']>(
  core: Core,
  name: N,
  match: (payload: EventPayload<N>) => boolean = () => true,
  ms = 20_000,
): Promise<EventPayload<N>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no ${name} event within ${ms} ms`));
    }, ms);
    const stop = core.subscribe((event) => {
      if (event.name !== name) return;
      // The union narrows by name at run time; the compiler cannot follow a generic name.
      const payload = event.payload as EventPayload<N>;
      if (!match(payload)) return;
      clearTimeout(timer);
      stop();
      resolve(payload);
    });
  });
}

/** Every cached test of a store with its results (as the bridge gives them), for decideTest. */
export async function testsWithResults(
  core: Core,
  storeId: string,
): Promise<{ test: Test; results: TestResults }[]> {
  const out: { test: Test; results: TestResults }[] = [];
  for (const row of await allTestRows(core, storeId)) {
    const results = await core.services.tests.results({ storeId, testId: row.id });
    if (results === null) continue;
    const detail = await core.services.tests.get({ storeId, testId: row.id });
    out.push({ test: detail.test, results: results.results });
  }
  return out;
}

/** A stored decision read back through JSON: what the engine's own call looks like after the cache. */
export function asStored(decision: Decision | null): Decision | null {
  return decision === null ? null : (JSON.parse(JSON.stringify(decision)) as Decision);
}

/** The calls of a batch made here, on the test's thread, as the refresh makes them without calls threads. */
export function makeCallsInPlace(batch: StaleCalls): CallAnswer[] {
  return callJobs(batch).map(makeCall);
}
