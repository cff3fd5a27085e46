// The seeded generator: same seed same data, every record valid against the API schemas, realistic values.
import { describe, expect, it } from 'vitest';
import {
  Campaign,
  CustomAudience,
  DefaultAudience,
  Tag,
  Test,
  TestResults,
  TEST_STATUSES,
} from '#shared/api/index';
import { isEnded, isLaunched } from '#shared/domain/lifecycle';
import { API_PREFIX, createSimulator, METRICS } from '#simulator/index';
import { bearer, NOW } from './support';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TIMESTAMP_FIELDS = [
  'createdAt',
  'updatedAt',
  'startAt',
  'endAt',
  'appliedAt',
  'automaticallyStartAt',
  'automaticallyEndAt',
  'automaticallyPauseAt',
  'automaticallyResumeAt',
  'estimatedCompletionDate',
] as const;

const fixedClock = () => NOW;

describe('determinism', () => {
  it('gives the same stores, keys, records and results for the same seed', () => {
    const a = createSimulator({ seed: 7, now: fixedClock });
    const b = createSimulator({ seed: 7, now: fixedClock });
    expect(b.stores).toEqual(a.stores);
    for (const { id } of a.stores) expect(b.snapshot(id)).toEqual(a.snapshot(id));
    const launched = a
      .snapshot('Nordic Home')
      .tests.filter((test) => isLaunched(test.status))
      .slice(0, 10);
    for (const test of launched)
      expect(b.results('Nordic Home', test.id)).toEqual(a.results('Nordic Home', test.id));
  });

  it('gives other data for another seed', () => {
    const a = createSimulator({ seed: 1, now: fixedClock });
    const b = createSimulator({ seed: 2, now: fixedClock });
    expect(b.stores.map((store) => store.apiKey)).not.toEqual(
      a.stores.map((store) => store.apiKey),
    );
    expect(b.snapshot('Acme Outdoor').tests.map((test) => test.id)).not.toEqual(
      a.snapshot('Acme Outdoor').tests.map((test) => test.id),
    );
  });

  it('keeps the first tests of a store the same whatever its size', () => {
    const small = createSimulator({
      now: fixedClock,
      stores: [{ name: 'Shop', tests: 20 }],
    }).snapshot('Shop').tests;
    const large = createSimulator({
      now: fixedClock,
      stores: [{ name: 'Shop', tests: 200 }],
    }).snapshot('Shop').tests;
    const largeById = new Map(large.map((test) => [test.id, test]));
    for (const test of small) expect(largeById.get(test.id)).toEqual(test);
  });
});

describe('generated records', () => {
  const sim = createSimulator({ now: fixedClock });
  const stores = [...new Set(sim.stores.map((store) => store.name))];

  it('default to three stores with deterministic sk_test_ keys and one read-only key', () => {
    expect(stores).toEqual(['Acme Outdoor', 'Nordic Home', 'Demo store']);
    for (const store of sim.stores) expect(store.apiKey).toMatch(/^sk_test_[0-9a-f]{32}$/);
    expect(sim.stores.filter((store) => store.readOnly).map((store) => store.name)).toEqual([
      'Acme Outdoor',
    ]);
    expect(new Set(sim.stores.map((store) => store.apiKey)).size).toBe(sim.stores.length);
  });

  it('all match the API schemas', () => {
    for (const name of stores) {
      const snapshot = sim.snapshot(name);
      expect(snapshot.tests).toHaveLength(250);
      for (const test of snapshot.tests) expect(Test.safeParse(test).error).toBeUndefined();
      for (const campaign of snapshot.campaigns) Campaign.parse(campaign);
      for (const audience of snapshot.customAudiences) CustomAudience.parse(audience);
      for (const audience of snapshot.defaultAudiences) DefaultAudience.parse(audience);
      for (const tag of snapshot.tags) Tag.parse(tag);
    }
  });

  it('give every launched test results that match the schema, and no other test any', () => {
    for (const test of sim.snapshot('Demo store').tests) {
      const results = sim.results('Demo store', test.id);
      if (isLaunched(test.status)) expect(TestResults.safeParse(results).error).toBeUndefined();
      else expect(results).toBeNull();
    }
  });

  it('cover every status, weighted like a real store', () => {
    const tests = createSimulator({
      now: fixedClock,
      stores: [{ name: 'Big', tests: 2000 }],
    }).snapshot('Big').tests;
    const share = (status: string) =>
      tests.filter((test) => test.status === status).length / tests.length;
    for (const status of TEST_STATUSES) expect(share(status)).toBeGreaterThan(0);
    expect(share('completed') + share('active') + share('draft')).toBeGreaterThan(0.55);
    expect(share('incompatible')).toBeLessThan(0.05);
  });

  it('take realistic values: goals, devices, titles, timestamps in UTC, dates in a sensible order', () => {
    const snapshot = sim.snapshot('Acme Outdoor');
    const goals = METRICS.map((metric) => metric.goal) as string[];
    const campaignIds = new Set(snapshot.campaigns.map((campaign) => campaign.id));
    for (const test of snapshot.tests) {
      expect(goals).toContain(test.goal);
      expect(['all', 'mobile', 'desktop']).toContain(test.device);
      expect(['all', 'new', 'returning']).toContain(test.visitorOption);
      expect(test.title.length).toBeGreaterThan(3);
      for (const field of TIMESTAMP_FIELDS) {
        const value = test[field];
        if (value !== null) expect(value).toMatch(ISO_UTC);
      }
      expect(Date.parse(test.createdAt)).toBeLessThanOrEqual(Date.parse(test.updatedAt));
      expect(Date.parse(test.updatedAt)).toBeLessThan(NOW);
      if (isLaunched(test.status)) {
        expect(test.startAt).not.toBeNull();
        expect(test.variant).not.toBeNull();
      }
      if (isEnded(test.status))
        expect(Date.parse(test.endAt ?? '')).toBeGreaterThan(Date.parse(test.startAt ?? ''));
      if (test.variant !== null) expect(test.control.traffic + test.variant.traffic).toBe(100);
      if (test.campaign !== null) expect(campaignIds.has(test.campaign.id ?? '')).toBe(true);
    }
    expect(snapshot.tests.some((test) => test.variant === null)).toBe(true);
    expect(snapshot.tests.some((test) => test.tags.length > 0)).toBe(true);
    expect(snapshot.tests.some((test) => test.customAudiences.length > 0)).toBe(true);
    expect(snapshot.tests.some((test) => test.defaultAudiences.length > 0)).toBe(true);
  });

  it('include campaigns that are not active, and default audiences of channel, referer and country', () => {
    const snapshot = sim.snapshot('Nordic Home');
    expect(snapshot.campaigns.some((campaign) => campaign.status === 'active')).toBe(true);
    expect(snapshot.campaigns.some((campaign) => campaign.status !== 'active')).toBe(true);
    expect(new Set(snapshot.defaultAudiences.map((audience) => audience.dimension))).toEqual(
      new Set(['channel', 'referer', 'country']),
    );
  });
});

describe('scale', () => {
  it('makes a store of 20,000 tests in well under two seconds and serves its pages at once', async () => {
    const started = performance.now();
    const sim = createSimulator({ now: fixedClock, stores: [{ name: 'Huge', tests: 20_000 }] });
    const response = await sim.fetch(`${sim.baseUrl}${API_PREFIX}/tests?page=400&perPage=50`, {
      headers: bearer(sim.stores[0]?.apiKey ?? ''),
    });
    const body = (await response.json()) as {
      data: unknown[];
      pagination: { totalCount: number; totalPages: number };
    };
    const elapsed = performance.now() - started;
    expect(body.pagination).toMatchObject({ totalCount: 20_000, totalPages: 400 });
    expect(body.data).toHaveLength(50);
    expect(elapsed).toBeLessThan(2000);
  });
});
