// Schema-valid API records and throwaway cache files for the db tests (independent of the simulator on purpose).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import {
  Campaign,
  CustomAudience,
  Test,
  TestResults,
  type SideStatistics,
} from '#shared/api/index';
import { insertStore } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import type { Db, StoreRow } from '#core/db/types';

/** A deterministic UUID: the same n always gives the same id, and ids sort by n within a kind. */
export function uuid(n: number, kind = 0): string {
  const hex = n.toString(16).padStart(12, '0');
  return `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${hex}`;
}

// ---------- temporary cache files ----------

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A fresh folder removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'splitbook-db-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A new cache file in a temp folder, opened like the app opens it, closed after the test. */
export function openTempDb(): Db {
  const db = openDatabase(join(tempDir(), 'cache.db'));
  cleanups.unshift(() => db.open && db.close());
  return db;
}

export function addStore(db: Db, id: string, name = `Store ${id}`): StoreRow {
  return insertStore(db, {
    id,
    name,
    baseUrl: `https://${id}.example.com`,
    kind: 'api',
    keyStorage: 'keychain',
    createdAt: '2026-01-01T00:00:00Z',
  });
}

// ---------- API records ----------

type TestFields = Partial<Omit<Test, 'id'>> & { n: number };

/** A complete Test; `n` picks its id, everything else has a plain default. */
export function makeTest({ n, ...fields }: TestFields): Test {
  return Test.parse({
    id: uuid(n, 1),
    title: `Test ${n}`,
    control: side(n, 'control'),
    variant: side(n, 'variant'),
    status: 'active',
    goal: 'conversion',
    device: 'all',
    visitorOption: 'all',
    hypothesisDescription: null,
    campaign: null,
    handle: null,
    duration: null,
    period: 14,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-02-01T00:00:00Z',
    startAt: null,
    endAt: null,
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
    ...fields,
  });
}

function side(n: number, which: 'control' | 'variant') {
  return {
    id: uuid(n, which === 'control' ? 2 : 3),
    type: 'theme',
    suffix: which === 'control' ? 'a' : 'b',
    themeId: 100 + n,
    redirectUrl: null,
    screenshotUrl: null,
    title: which === 'control' ? 'Original' : null,
    traffic: 50,
  };
}

export function tag(n: number, name: string) {
  return { id: uuid(n, 4), name };
}

export function customAudience(n: number, name: string): CustomAudience {
  return CustomAudience.parse({
    id: uuid(n, 5),
    name,
    rules: [{ dimension: 'country', operator: 'in', values: ['FR', 'DE'], selector: null }],
  });
}

export function defaultAudience(n: number, value: string) {
  return { id: uuid(n, 6), name: `Country ${value}`, dimension: 'country', operator: 'is', value };
}

/** A test as sent and as parsed: the pair upsertTests takes. */
/** A test as the server sent it: a copy, so the cache cannot share objects with the fixture. */
export function item(test: Test): Test {
  return structuredClone(test);
}

export function stats(
  visitors: number,
  conversions: number,
  segments: Partial<Record<'mobile' | 'desktop' | 'new' | 'returning', SideStatistics>> = {},
): SideStatistics {
  const revenue = conversions * 40;
  return {
    visitors,
    visits: visitors + 10,
    clicks: visitors * 2,
    carts: conversions * 2,
    conversions,
    orders: conversions,
    totalOrders: conversions,
    totalConversions: conversions,
    initialSubscriptionConversions: 0,
    initialSubscriptionOrders: 0,
    initialSubscriptionRevenue: 0,
    cnv: conversions / visitors,
    cvr: conversions / visitors,
    aov: 40,
    rps: revenue / visitors,
    rpv: revenue / visitors,
    ctr: 0.5,
    acr: 0.25,
    revenue,
    totalRevenue: revenue,
    mobile: segments.mobile ?? null,
    desktop: segments.desktop ?? null,
    new: segments.new ?? null,
    returning: segments.returning ?? null,
  };
}

export function makeResults(testId: string, fields: Partial<TestResults> = {}): TestResults {
  const control = stats(1000, 30, { mobile: stats(600, 15), desktop: stats(400, 15) });
  const variant = stats(1000, 36, { mobile: stats(590, 20) });
  const lifecycle = {
    goal: 1,
    tier: 'emerging',
    tierReachedAt: '2026-02-03',
    leadingVariant: 'variant',
    probabilityToWin: 0.81,
    notYetStable: true,
  };
  return TestResults.parse({
    id: testId,
    status: 'active',
    totalVisitors: 2000,
    totalSessions: 2000,
    controlSplit: 50,
    variantSplit: 50,
    winner: null,
    bayesianModelStatus: null,
    bayesianModelTrend: null,
    hasSufficientSamples: false,
    progress: 0,
    lift: 0.2,
    changeRevenue: 240,
    controlProbabilityWin: 0.19,
    variantProbabilityWin: 0.81,
    liftByMetric: { '1': { value: 0.2 } },
    control,
    variant,
    daily: {
      '2026-02-01': { performance: { control: stats(500, 14), variant: stats(500, 17) } },
      '2026-02-02': { performance: { control: stats(500, 16), variant: stats(500, 19) } },
    },
    lifecycle,
    lifecycleByGoal: {
      '1': lifecycle,
      '2': { ...lifecycle, goal: 2, tier: 'learning', probabilityToWin: 0.55 },
    },
    ...fields,
  });
}

export function makeCampaign(n: number, name: string, fields: Partial<Campaign> = {}): Campaign {
  return Campaign.parse({
    id: uuid(n, 7),
    name,
    objective: null,
    goal: null,
    status: 'active',
    createdAt: '2026-01-05T00:00:00Z',
    progress: { total: 3, live: 1, paused: 0, draft: 1, ended: 1 },
    ...fields,
  });
}
