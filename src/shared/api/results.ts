// zod schemas of a launched test's results: side statistics, segments, daily series, lifecycle.
import { z } from 'zod';
import { Int32, Uuid, openEnum } from './common';
import { TestStatus } from './resources';

export const SEGMENTS = ['mobile', 'desktop', 'new', 'returning'] as const;
export type Segment = (typeof SEGMENTS)[number];

const sideStatisticsFields = {
  visitors: Int32,
  visits: Int32,
  clicks: Int32,
  carts: Int32,
  conversions: Int32,
  orders: Int32,
  totalOrders: Int32,
  totalConversions: Int32,
  initialSubscriptionConversions: Int32,
  initialSubscriptionOrders: Int32,
  initialSubscriptionRevenue: z.number(),
  cnv: z.number(),
  cvr: z.number(),
  aov: z.number(),
  /** Deprecated alias of `rpv`. */
  rps: z.number(),
  rpv: z.number(),
  ctr: z.number(),
  acr: z.number(),
  revenue: z.number(),
  totalRevenue: z.number(),
};

const SideMetrics = z.looseObject(sideStatisticsFields);

/** Per-side statistics; each segment is null or the same statistics for that part of the traffic. */
export type SideStatistics = z.infer<typeof SideMetrics> & {
  [S in Segment]: SideStatistics | null;
};
export const SideStatistics: z.ZodType<SideStatistics> = SideMetrics.extend({
  mobile: z.lazy(() => SideStatistics).nullable(),
  desktop: z.lazy(() => SideStatistics).nullable(),
  new: z.lazy(() => SideStatistics).nullable(),
  returning: z.lazy(() => SideStatistics).nullable(),
});

/** The numeric metrics of a side, in the order the UI shows them. */
export const SIDE_METRICS = Object.keys(
  sideStatisticsFields,
) as (keyof typeof sideStatisticsFields)[];
export type SideMetric = (typeof SIDE_METRICS)[number];

export const Lifecycle = z.looseObject({
  goal: Int32,
  tier: openEnum(['learning', 'emerging', 'significant', 'inconclusive']),
  tierReachedAt: z.iso.date().nullable(),
  leadingVariant: z.string().nullable(),
  probabilityToWin: z.number(),
  notYetStable: z.boolean(),
});
export type Lifecycle = z.infer<typeof Lifecycle>;

/** Keys of `liftByMetric` and `lifecycleByGoal` are integers sent as JSON object keys. */
const IntegerKey = z.string().regex(/^-?\d+$/, 'Expected an integer key');

export const DailyPoint = z.looseObject({
  performance: z.looseObject({
    control: SideStatistics,
    variant: SideStatistics,
  }),
});
export type DailyPoint = z.infer<typeof DailyPoint>;

export const TestResults = z.looseObject({
  id: Uuid,
  status: TestStatus,
  totalVisitors: Int32,
  /** Deprecated: counts unique visitors, equal to totalVisitors. */
  totalSessions: Int32,
  controlSplit: Int32,
  variantSplit: Int32,
  winner: z.string().nullable(),
  /** Deprecated: superseded by lifecycle. */
  bayesianModelStatus: z.string().nullable(),
  /** Deprecated: superseded by lifecycle. */
  bayesianModelTrend: z.string().nullable(),
  /** Deprecated: always false on the current model. */
  hasSufficientSamples: z.boolean(),
  /** Deprecated: always 0 on the current model. */
  progress: z.number(),
  lift: z.number(),
  changeRevenue: z.number(),
  controlProbabilityWin: z.number(),
  variantProbabilityWin: z.number(),
  liftByMetric: z.record(IntegerKey, z.looseObject({ value: z.number() })),
  control: SideStatistics,
  variant: SideStatistics,
  daily: z.record(z.string(), DailyPoint),
  lifecycle: Lifecycle,
  lifecycleByGoal: z.record(IntegerKey, Lifecycle),
});
export type TestResults = z.infer<typeof TestResults>;
