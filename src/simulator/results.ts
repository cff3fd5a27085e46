// Results of a launched test, generated on demand and internally consistent.
//
// Traffic is drawn per day and per cell (side x device x new/returning) from a stream seeded by the
// test id and the day's index, so a day's numbers never change as later days are added. Everything
// else is sums of cells: segments add up to their side, the daily series adds up to the totals, and
// every rate is recomputed from the summed counts (units: see metrics.ts).
// Choices where the spec is silent: `daily` is keyed by UTC date 'YYYY-MM-DD' from the start date to
// the end date (or today for a running test, today counted as a whole day), its sides carry no segments;
// a segment the test does not target (e.g. desktop on a mobile-only test) is null.
import type { Lifecycle, SideStatistics, Test, TestResults } from '#shared/api/index';
import { isEnded, isLaunched } from '#shared/domain/lifecycle';
import { DAY_MS, iso, startOfDay } from './generate';
import {
  addInto,
  liftPercent,
  METRICS,
  metricOfGoal,
  ratesOf,
  zeroCounts,
  type Counts,
  type Metric,
} from './metrics';
import { createRandom, hashSeed, type Random } from './random';
import { isNotYetStable, tierOf, variantProbabilityToWin, type Tier } from './statistics';

/** Tests started before this date report the deprecated Bayesian model fields; later ones send null. */
const MODEL_SWITCH = Date.parse('2025-07-01T00:00:00Z');

/** Traffic by weekday, Sunday first: weekends sell more. */
const WEEKDAY_FACTOR = [1.15, 0.92, 0.95, 0.97, 1.0, 1.05, 1.2] as const;

type Cell = { mobile: boolean; fresh: boolean };
const CELLS: readonly Cell[] = [
  { mobile: true, fresh: true },
  { mobile: true, fresh: false },
  { mobile: false, fresh: true },
  { mobile: false, fresh: false },
];

/** The hidden truth of one test: its traffic and its rates, and how far the variant moves them. */
type Profile = {
  visitorsPerDay: number;
  mobileShare: number;
  newShare: number;
  extraVisitShare: number;
  ctr: number;
  acr: number;
  checkout: number;
  aov: number;
  subscriptionShare: number;
  effect: { ctr: number; acr: number; checkout: number; aov: number };
};

function profileOf(rng: Random, test: Test): Profile {
  const mobileShare = rng.float(0.55, 0.75);
  const newShare = rng.float(0.55, 0.8);
  // Most changes do little; some help, a few hurt.
  const direction = rng.weighted<number>([
    [0, 60],
    [1, 30],
    [-1, 10],
  ]);
  const effect = () => direction * rng.float(0.02, 0.12) + rng.normal() * 0.01;
  return {
    visitorsPerDay: Math.exp(rng.float(Math.log(40), Math.log(4000))),
    mobileShare: test.device === 'mobile' ? 1 : test.device === 'desktop' ? 0 : mobileShare,
    newShare: test.visitorOption === 'new' ? 1 : test.visitorOption === 'returning' ? 0 : newShare,
    extraVisitShare: rng.float(0.1, 0.4),
    ctr: rng.float(0.25, 0.55),
    acr: rng.float(0.05, 0.15),
    checkout: rng.float(0.25, 0.5),
    aov: rng.float(30, 150),
    subscriptionShare: rng.float(0, 0.2),
    effect: { ctr: effect() / 2, acr: effect(), checkout: effect(), aov: rng.normal() * 0.02 },
  };
}

const clamp01 = (p: number) => Math.min(1, Math.max(0, p));

/** Binomial draw: exact by inversion while the mean is small, normal approximation above. */
function binomial(rng: Random, n: number, p: number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (n * p < 10 && n < 1000) {
    // Walk the CDF from k = 0 until it passes one uniform draw: about n*p steps.
    const odds = p / (1 - p);
    let probability = Math.pow(1 - p, n);
    let cumulative = probability;
    const u = rng.next();
    let k = 0;
    while (u > cumulative && k < n) {
      probability *= ((n - k) / (k + 1)) * odds;
      k++;
      cumulative += probability;
    }
    return k;
  }
  const draw = Math.round(n * p + Math.sqrt(n * p * (1 - p)) * rng.normal());
  return Math.min(n, Math.max(0, draw));
}

const NO_EFFECT: Profile['effect'] = { ctr: 0, acr: 0, checkout: 0, aov: 0 };

function cellCounts(
  rng: Random,
  profile: Profile,
  expectedVisitors: number,
  cell: Cell,
  isVariant: boolean,
): Counts {
  const effect = isVariant ? profile.effect : NO_EFFECT;
  const visitors = Math.max(
    0,
    Math.round(expectedVisitors + Math.sqrt(expectedVisitors) * rng.normal()),
  );
  const visits = visitors + binomial(rng, visitors, profile.extraVisitShare);
  const clicks = binomial(rng, visits, clamp01(profile.ctr * (1 + effect.ctr)));
  const carts = binomial(
    rng,
    visitors,
    clamp01(profile.acr * (cell.mobile ? 0.85 : 1) * (cell.fresh ? 1 : 1.3) * (1 + effect.acr)),
  );
  const conversions = binomial(
    rng,
    carts,
    clamp01(
      profile.checkout * (cell.mobile ? 0.8 : 1) * (cell.fresh ? 1 : 1.25) * (1 + effect.checkout),
    ),
  );
  const orders = conversions + binomial(rng, conversions, 0.06);
  const aov = profile.aov * (cell.mobile ? 0.9 : 1) * (cell.fresh ? 1 : 1.1) * (1 + effect.aov);
  const revenueCents =
    orders === 0
      ? 0
      : Math.max(
          orders * 100,
          Math.round(orders * aov * 100 + aov * 100 * 0.6 * Math.sqrt(orders) * rng.normal()),
        );
  const totalOrders = orders + binomial(rng, orders, 0.04);
  const initialSubscriptionConversions = binomial(rng, conversions, profile.subscriptionShare);
  const initialSubscriptionOrders = Math.max(
    initialSubscriptionConversions,
    binomial(rng, orders, profile.subscriptionShare),
  );
  return {
    visitors,
    visits,
    clicks,
    carts,
    conversions,
    orders,
    totalOrders,
    totalConversions: conversions + binomial(rng, totalOrders - orders, 0.8),
    initialSubscriptionConversions,
    initialSubscriptionOrders,
    revenueCents,
    totalRevenueCents: revenueCents + Math.round((totalOrders - orders) * aov * 100),
    initialSubscriptionRevenueCents:
      orders === 0 ? 0 : Math.round((revenueCents * initialSubscriptionOrders) / orders),
  };
}

type Segments = {
  mobile: SideStatistics | null;
  desktop: SideStatistics | null;
  new: SideStatistics | null;
  returning: SideStatistics | null;
};
const NO_SEGMENTS: Segments = { mobile: null, desktop: null, new: null, returning: null };

function sideStatistics(counts: Counts, segments: Segments): SideStatistics {
  const rates = ratesOf(counts);
  return {
    visitors: counts.visitors,
    visits: counts.visits,
    clicks: counts.clicks,
    carts: counts.carts,
    conversions: counts.conversions,
    orders: counts.orders,
    totalOrders: counts.totalOrders,
    totalConversions: counts.totalConversions,
    initialSubscriptionConversions: counts.initialSubscriptionConversions,
    initialSubscriptionOrders: counts.initialSubscriptionOrders,
    initialSubscriptionRevenue: counts.initialSubscriptionRevenueCents / 100,
    cnv: rates.cnv,
    cvr: rates.cvr,
    aov: rates.aov,
    rps: rates.rpv,
    rpv: rates.rpv,
    ctr: rates.ctr,
    acr: rates.acr,
    revenue: counts.revenueCents / 100,
    totalRevenue: counts.totalRevenueCents / 100,
    ...segments,
  };
}

/** Running sums of one side: its total and its four segments (each cell falls in two of them). */
type SideSums = { total: Counts; mobile: Counts; desktop: Counts; new: Counts; returning: Counts };

function emptySums(): SideSums {
  return {
    total: zeroCounts(),
    mobile: zeroCounts(),
    desktop: zeroCounts(),
    new: zeroCounts(),
    returning: zeroCounts(),
  };
}

function addCell(sums: SideSums, cell: Cell, counts: Counts): void {
  addInto(sums.total, counts);
  addInto(cell.mobile ? sums.mobile : sums.desktop, counts);
  addInto(cell.fresh ? sums.new : sums.returning, counts);
}

/** The side's statistics with its segments; a segment the test does not reach (share 0) is null. */
function sideWithSegments(sums: SideSums, profile: Profile): SideStatistics {
  const segment = (share: number, counts: Counts) =>
    share === 0 ? null : sideStatistics(counts, NO_SEGMENTS);
  return sideStatistics(sums.total, {
    mobile: segment(profile.mobileShare, sums.mobile),
    desktop: segment(1 - profile.mobileShare, sums.desktop),
    new: segment(profile.newShare, sums.new),
    returning: segment(1 - profile.newShare, sums.returning),
  });
}

type DrawnSide = { traffic: number; isVariant: boolean; sums: SideSums };

/** One side's day: each cell drawn, added to the side's running sums; returns the day's total. */
function drawDay(rng: Random, profile: Profile, side: DrawnSide, volume: number): Counts {
  const day = zeroCounts();
  for (const cell of CELLS) {
    const share =
      (cell.mobile ? profile.mobileShare : 1 - profile.mobileShare) *
      (cell.fresh ? profile.newShare : 1 - profile.newShare);
    const counts = cellCounts(
      rng,
      profile,
      volume * (side.traffic / 100) * share,
      cell,
      side.isVariant,
    );
    addInto(day, counts);
    addCell(side.sums, cell, counts);
  }
  return day;
}

function dateKey(ms: number): string {
  return iso(ms).slice(0, 10);
}

/** 0 = Sunday; 1970-01-01 was a Thursday. */
function weekday(dayStart: number): number {
  return (Math.floor(dayStart / DAY_MS) + 4) % 7;
}

function lifecycleOf(
  metric: Metric,
  tier: Tier,
  since: string | null,
  variantProbability: number,
  stable: boolean,
): Lifecycle {
  return {
    goal: metric.id,
    tier,
    tierReachedAt: tier === 'learning' ? null : since,
    leadingVariant:
      variantProbability > 0.5 ? 'variant' : variantProbability < 0.5 ? 'control' : null,
    probabilityToWin: Math.max(variantProbability, 1 - variantProbability),
    notYetStable: !stable,
  };
}

/**
 * The last instant the test collects data: its end; for a paused or suspended test, its last update
 * (when it was paused: no traffic is split while it stays so); else `now`.
 */
function lastDataMoment(test: Test, now: number): number {
  const end = test.endAt === null ? Number.NaN : Date.parse(test.endAt);
  if (!Number.isNaN(end)) return Math.min(end, now);
  const halted = test.status === 'paused' || test.status === 'suspended';
  const pausedAt = Date.parse(test.updatedAt);
  return halted && !Number.isNaN(pausedAt) ? Math.min(pausedAt, now) : now;
}

/**
 * Results of `test` as of `now`, or null when the test has none (never launched, or no variant).
 * Live tests gain a day of data per simulated day; ended tests stop at their end date.
 */
export function computeResults(
  seed: number,
  test: Test,
  now: number,
  variantLoss = 0,
): TestResults | null {
  if (!isLaunched(test.status) || test.variant === null) return null;
  const start = Date.parse(test.startAt ?? test.createdAt);
  const firstDay = startOfDay(start);
  const dayCount = Math.max(
    0,
    Math.floor((startOfDay(lastDataMoment(test, now)) - firstDay) / DAY_MS) + 1,
  );
  const testSeed = hashSeed(seed, 'results', test.id);
  const profile = profileOf(createRandom(testSeed), test);
  const controlSide: DrawnSide = {
    traffic: test.control.traffic,
    isVariant: false,
    sums: emptySums(),
  };
  const variantSide: DrawnSide = {
    // A planted sample-ratio mismatch: the variant loses this share of its visitors (a broken redirect).
    traffic: test.variant.traffic * (1 - variantLoss),
    isVariant: true,
    sums: emptySums(),
  };

  const daily: TestResults['daily'] = {};
  const lifecycles = METRICS.map((metric) => ({
    metric,
    tier: 'learning' as Tier,
    since: null as string | null,
    probability: 0.5,
    stable: false,
  }));
  for (let day = 0; day < dayCount; day++) {
    const dayStart = firstDay + day * DAY_MS;
    const date = dateKey(dayStart);
    const rng = createRandom(hashSeed(testSeed, 'day', day));
    const volume = Math.max(
      0,
      profile.visitorsPerDay * (WEEKDAY_FACTOR[weekday(dayStart)] ?? 1) * (1 + 0.1 * rng.normal()),
    );
    const controlDay = drawDay(rng, profile, controlSide, volume);
    const variantDay = drawDay(rng, profile, variantSide, volume);
    daily[date] = {
      performance: {
        control: sideStatistics(controlDay, NO_SEGMENTS),
        variant: sideStatistics(variantDay, NO_SEGMENTS),
      },
    };
    // Follow each metric's tier day by day, to know when the current tier was reached.
    for (const state of lifecycles) {
      const input = {
        variantProbability: variantProbabilityToWin(
          state.metric,
          controlSide.sums.total,
          variantSide.sums.total,
        ),
        minSideVisitors: Math.min(controlSide.sums.total.visitors, variantSide.sums.total.visitors),
        days: day + 1,
      };
      const tier = tierOf(input);
      if (tier !== state.tier || state.since === null) state.since = date;
      state.tier = tier;
      state.probability = input.variantProbability;
      state.stable = !isNotYetStable(input);
    }
  }

  const control = sideWithSegments(controlSide.sums, profile);
  const variant = sideWithSegments(variantSide.sums, profile);
  const lifecycleByGoal: TestResults['lifecycleByGoal'] = {};
  const liftByMetric: TestResults['liftByMetric'] = {};
  for (const state of lifecycles) {
    lifecycleByGoal[state.metric.id] = lifecycleOf(
      state.metric,
      state.tier,
      state.since,
      state.probability,
      state.stable,
    );
    liftByMetric[state.metric.id] = {
      value: liftPercent(control[state.metric.rate], variant[state.metric.rate]),
    };
  }
  const goal = metricOfGoal(test.goal);
  const lifecycle = lifecycleByGoal[goal.id] ?? lifecycleOf(goal, 'learning', null, 0.5, false);
  const lift = liftByMetric[goal.id]?.value ?? 0;
  const legacyModel = start < MODEL_SWITCH;
  // Beta-Binomial (normal approximation) on the goal metric; the two sides' probabilities sum to 1.
  const variantProbability = variantProbabilityToWin(
    goal,
    controlSide.sums.total,
    variantSide.sums.total,
  );

  return {
    id: test.id,
    status: test.status,
    totalVisitors: control.visitors + variant.visitors,
    totalSessions: control.visitors + variant.visitors,
    controlSplit: test.control.traffic,
    variantSplit: test.variant.traffic,
    winner: lifecycle.tier === 'significant' ? lifecycle.leadingVariant : null,
    bayesianModelStatus: legacyModel ? (isEnded(test.status) ? 'completed' : 'running') : null,
    bayesianModelTrend: legacyModel
      ? lift > 1
        ? 'positive'
        : lift < -1
          ? 'negative'
          : 'flat'
      : null,
    hasSufficientSamples: false,
    progress: 0,
    lift,
    changeRevenue: (variant.rpv - control.rpv) * variant.visitors,
    controlProbabilityWin: 1 - variantProbability,
    variantProbabilityWin: variantProbability,
    liftByMetric,
    control,
    variant,
    daily,
    lifecycle,
    lifecycleByGoal,
  };
}

/** Results cached per test and day count: recomputed only when a live test gains a day (or its record changes). */
export function createResultsCache(seed: number, capacity = 256) {
  const cache = new Map<string, { key: string; results: TestResults | null }>();
  return {
    get(test: Test, now: number, variantLoss = 0): TestResults | null {
      const key = JSON.stringify([
        startOfDay(lastDataMoment(test, now)),
        test.status,
        test.startAt,
        test.endAt,
        test.goal,
        test.device,
        test.visitorOption,
        test.control.traffic,
        test.variant?.traffic,
        variantLoss,
      ]);
      const hit = cache.get(test.id);
      cache.delete(test.id);
      const entry =
        hit !== undefined && hit.key === key
          ? hit
          : { key, results: computeResults(seed, test, now, variantLoss) };
      cache.set(test.id, entry);
      // Map keeps insertion order, so the first key is the least recently used.
      if (cache.size > capacity) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
      return entry.results;
    },
  };
}
export type ResultsCache = ReturnType<typeof createResultsCache>;
