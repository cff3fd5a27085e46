// Builders of valid tests and results for the statistics tests: counts in, consistent rates out.
import { Test, TestResults, type SideStatistics } from '#shared/api/index';

export type Counts = {
  visitors: number;
  conversions: number;
  orders?: number;
  carts?: number;
  clicks?: number;
  visits?: number;
  revenue?: number;
};

const DAY_MS = 86_400_000;

/** Side statistics whose rates follow from the counts (definitions in src/shared/domain/metrics.ts). */
export function side(
  counts: Counts,
  segments: Partial<Record<'mobile' | 'desktop' | 'new' | 'returning', SideStatistics>> = {},
): SideStatistics {
  const { visitors, conversions } = counts;
  const orders = counts.orders ?? conversions;
  const carts = counts.carts ?? Math.min(visitors, conversions * 3);
  const clicks = counts.clicks ?? Math.min(visitors, conversions * 5);
  const visits = counts.visits ?? visitors;
  const revenue = counts.revenue ?? orders * 50;
  const pct = (n: number, d: number) => (d > 0 ? (n / d) * 100 : 0);
  return {
    visitors,
    visits,
    clicks,
    carts,
    conversions,
    orders,
    totalOrders: orders,
    totalConversions: conversions,
    initialSubscriptionConversions: 0,
    initialSubscriptionOrders: 0,
    initialSubscriptionRevenue: 0,
    cnv: pct(conversions, visits),
    cvr: pct(conversions, visitors),
    aov: orders > 0 ? revenue / orders : 0,
    rps: visitors > 0 ? revenue / visitors : 0,
    rpv: visitors > 0 ? revenue / visitors : 0,
    ctr: pct(clicks, visits),
    acr: pct(carts, visitors),
    revenue,
    totalRevenue: revenue,
    mobile: segments.mobile ?? null,
    desktop: segments.desktop ?? null,
    new: segments.new ?? null,
    returning: segments.returning ?? null,
  };
}

export function testOf(overrides: Partial<Test> = {}): Test {
  const sideOf = (type: string, traffic: number) => ({
    id: '00000000-0000-4000-8000-00000000000' + (type === 'control' ? '1' : '2'),
    type,
    suffix: '',
    themeId: 1,
    redirectUrl: null,
    screenshotUrl: null,
    title: null,
    traffic,
  });
  return Test.parse({
    id: '00000000-0000-4000-8000-000000000010',
    title: 'Free shipping banner',
    control: sideOf('control', 50),
    variant: sideOf('variant', 50),
    status: 'active',
    goal: 'conversion-rate',
    device: 'all',
    visitorOption: 'all',
    hypothesisDescription: null,
    campaign: null,
    handle: null,
    duration: null,
    period: 14,
    createdAt: '2026-05-01T00:00:00Z',
    updatedAt: '2026-05-01T00:00:00Z',
    startAt: '2026-05-01T10:00:00Z',
    endAt: '2026-05-14T18:00:00Z',
    appliedAt: null,
    automaticallyStartAt: null,
    automaticallyEndAt: null,
    automaticallyPauseAt: null,
    automaticallyResumeAt: null,
    endWhenSignificant: false,
    estimatedCompletionDate: null,
    customAudiences: [],
    defaultAudiences: [],
    stage: 'idea',
    tags: [],
    priority: null,
    surfaceArea: null,
    impact: null,
    effort: null,
    implemented: null,
    ...overrides,
  });
}

export type DayCounts = { control: Counts; variant: Counts };

/** A date key 'YYYY-MM-DD', `offset` days after `start`. */
export function dateKey(start: string, offset: number): string {
  return new Date(Date.parse(`${start}T00:00:00Z`) + offset * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Results whose totals are the sums of the given days (start 2026-05-01 by default), with the API's
 * probabilities set to `variantProbabilityWin` and its complement.
 */
export function resultsOf(
  days: readonly DayCounts[],
  overrides: Partial<TestResults> & { start?: string } = {},
): TestResults {
  const { start = '2026-05-01', ...rest } = overrides;
  const sum = (pick: (d: DayCounts) => Counts): Counts => {
    const total = {
      visitors: 0,
      conversions: 0,
      orders: 0,
      carts: 0,
      clicks: 0,
      visits: 0,
      revenue: 0,
    };
    for (const day of days) {
      const c = side(pick(day));
      total.visitors += c.visitors;
      total.conversions += c.conversions;
      total.orders += c.orders;
      total.carts += c.carts;
      total.clicks += c.clicks;
      total.visits += c.visits;
      total.revenue += c.revenue;
    }
    return total;
  };
  const daily: TestResults['daily'] = {};
  days.forEach((day, i) => {
    daily[dateKey(start, i)] = {
      performance: { control: side(day.control), variant: side(day.variant) },
    };
  });
  const control = side(sum((d) => d.control));
  const variant = side(sum((d) => d.variant));
  const lifecycle = {
    goal: 1,
    tier: 'learning',
    tierReachedAt: null,
    leadingVariant: null,
    probabilityToWin: 0.5,
    notYetStable: true,
  };
  return TestResults.parse({
    id: '00000000-0000-4000-8000-000000000010',
    status: 'active',
    totalVisitors: control.visitors + variant.visitors,
    totalSessions: control.visitors + variant.visitors,
    controlSplit: 50,
    variantSplit: 50,
    winner: null,
    bayesianModelStatus: null,
    bayesianModelTrend: null,
    hasSufficientSamples: false,
    progress: 0,
    lift: 0,
    changeRevenue: 0,
    controlProbabilityWin: 0.5,
    variantProbabilityWin: 0.5,
    liftByMetric: {},
    control,
    variant,
    daily,
    lifecycle,
    lifecycleByGoal: { '1': lifecycle },
    ...rest,
  });
}

/** `n` identical days of traffic. */
export function evenDays(n: number, control: Counts, variant: Counts): DayCounts[] {
  return Array.from({ length: n }, () => ({ control, variant }));
}
