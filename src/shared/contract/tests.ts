// `tests.*`: the test list with its filters and facets, one test's detail and its results.
import { z } from 'zod';
import { Test, TestResults } from '../api';
import { Decision, DecisionCall } from '../domain/decisions/schemas';
import { method, StoreId } from './common';

export const TEST_SORT_KEYS = [
  'title',
  'status',
  'goal',
  'startAt',
  'endAt',
  'updatedAt',
  'probabilityToWin',
  'lift',
  /** Splitbook's lift and P(win) of the goal, and the call (those needing the consultant first, keep running last). */
  'goalLift',
  'goalPWin',
  'decision',
] as const;
export const TestSortKey = z.enum(TEST_SORT_KEYS);
export type TestSortKey = z.infer<typeof TestSortKey>;

/** Filters of the test list. `storeId` null means all stores. */
export const TestFilter = z.object({
  storeId: StoreId.nullable().default(null),
  statuses: z.array(z.string().max(64)).max(20).default([]),
  stage: z.string().max(64).nullable().default(null),
  goal: z.string().max(200).nullable().default(null),
  device: z.string().max(200).nullable().default(null),
  tag: z.string().max(200).nullable().default(null),
  campaignId: z.string().max(64).nullable().default(null),
  /** Only tests that target this custom audience (its id; "Used by N tests" of an audience). */
  audienceId: z.string().max(64).nullable().default(null),
  search: z.string().max(200).default(''),
  includeRemoved: z.boolean().default(false),
  /** Only tests whose cached results raised a data-quality alert (shared/domain/statistics). */
  hasAlerts: z.boolean().default(false),
  /** Only tests of shared stores whose owner, in the team layer, is this desktop's member ("Mine"). */
  mine: z.boolean().default(false),
});
export type TestFilter = z.infer<typeof TestFilter>;
export type TestFilterInput = z.input<typeof TestFilter>;

export const TestListInput = TestFilter.extend({
  sort: z
    .object({ key: TestSortKey, dir: z.enum(['asc', 'desc']) })
    .default({ key: 'updatedAt', dir: 'desc' }),
  /** Opaque keyset cursor from the previous page's `nextCursor`. */
  cursor: z.string().max(2000).nullable().default(null),
  limit: z.int().min(1).max(2000).default(500),
});
export type TestListInput = z.infer<typeof TestListInput>;

export const TestRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  id: z.string(),
  title: z.string(),
  status: z.string(),
  stage: z.string(),
  goal: z.string(),
  device: z.string(),
  startAt: z.string().nullable(),
  endAt: z.string().nullable(),
  updatedAt: z.string(),
  campaignName: z.string().nullable(),
  tags: z.array(z.string()),
  /** The variant's probability to win from the API's lifecycle, when results are cached. */
  probabilityToWin: z.number().nullable(),
  lift: z.number().nullable(),
  visitors: z.int().nullable(),
  /** The lifecycle tier of the test's goal ('significant' makes a lift a verdict), when results are cached. */
  tier: z.string().nullable(),
  /**
   * Codes of the data-quality alerts Splitbook computed from the cached results (AlertCode of
   * shared/domain/statistics, one per alert), or null when there are no results or they are not checked yet.
   */
  alerts: z.array(z.string()).nullable(),
  /** The leading side by the API's lifecycle of the test's goal, when results are cached. */
  leader: z.string().nullable(),
  removed: z.boolean(),
  /** Splitbook's call on the goal (shared/domain/decisions), null without results. */
  decision: DecisionCall.nullable(),
  /** The call in words ("Keep running, about 9 days") and its one-line reason. */
  decisionWords: z.string().nullable(),
  decisionReason: z.string().nullable(),
  daysToDecision: z.int().nullable(),
  /** Splitbook's relative lift of the goal metric (fraction) and the chance the variant wins on it, from the totals. */
  goalLift: z.number().nullable(),
  goalPWin: z.number().nullable(),
});
export type TestRow = z.infer<typeof TestRow>;

export const TestPage = z.object({
  rows: z.array(TestRow),
  nextCursor: z.string().nullable(),
  total: z.int(),
});
export type TestPage = z.infer<typeof TestPage>;

export const TestRef = z.object({ storeId: StoreId, testId: z.string().max(64) });

export const TestDetail = z.object({
  storeId: StoreId,
  storeName: z.string(),
  test: Test,
  removed: z.boolean(),
  syncedAt: z.string(),
  resultsSyncedAt: z.string().nullable(),
  /** Splitbook's call on the goal with every figure it used; null without results. */
  decision: Decision.nullable(),
});
export type TestDetail = z.infer<typeof TestDetail>;

export const ResultsDetail = z.object({
  storeId: StoreId,
  testId: z.string(),
  results: TestResults,
  fetchedAt: z.string(),
});
export type ResultsDetail = z.infer<typeof ResultsDetail>;

/**
 * What Refresh now got: `found` false when the store answered "not found" (no results yet; the cache
 * keeps what it had), otherwise the time the new results were fetched.
 */
export const RefreshedResults = z.object({ found: z.boolean(), fetchedAt: z.string().nullable() });
export type RefreshedResults = z.infer<typeof RefreshedResults>;

export const Facets = z.object({
  statusCounts: z.record(z.string(), z.int()),
  stages: z.array(z.string()),
  goals: z.array(z.string()),
  devices: z.array(z.string()),
  tags: z.array(z.string()),
  /** Campaigns the scope's tests name, with their store (two stores may share a campaign name). */
  campaigns: z.array(
    z.object({ id: z.string(), name: z.string(), storeName: z.string().nullable() }),
  ),
  /** Tests matching the whole filter (its "has alerts" aside) whose results raised an alert. */
  withAlerts: z.int(),
});
export type Facets = z.infer<typeof Facets>;

export const ScreenshotSide = z.enum(['control', 'variant']);
export type ScreenshotSide = z.infer<typeof ScreenshotSide>;

/** One side's screenshot, fetched by the core from the API's `screenshotUrl`, as a data: URL. */
export const Screenshot = z.object({
  side: ScreenshotSide,
  /** The address it came from (the API's), for the link beside it. */
  url: z.string(),
  dataUrl: z.string(),
  bytes: z.int(),
});
export type Screenshot = z.infer<typeof Screenshot>;

export const tests = {
  list: method(TestListInput, TestPage),
  facets: method(TestFilter, Facets),
  get: method(TestRef, TestDetail),
  results: method(TestRef, ResultsDetail.nullable()),
  /** Fetches one test's results from the store now, whatever their age (the store must be reachable). */
  refreshResults: method(TestRef, RefreshedResults),
  /**
   * A side's screenshot, fetched only when asked (the user opened the test's screenshots): by the core,
   * never by the window, so the window loads images from nowhere else. A side without an http(s)
   * `screenshotUrl`, an address that does not answer or does not send an image, is a problem saying so.
   */
  screenshot: method(TestRef.extend({ side: ScreenshotSide }), Screenshot),
};
