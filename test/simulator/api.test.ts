// The nine endpoints over real loopback HTTP: successes, every defined error, scoping and authentication.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActiveCampaignsResponse,
  Campaign,
  CreatedTagResponse,
  CustomAudience,
  CustomAudienceListResponse,
  Test,
  TestListResponse,
  TestResults,
} from '#shared/api/index';
import { isLaunched } from '#shared/domain/lifecycle';
import type { RequestLogEntry } from '#simulator/index';
import { bearer, expectJson, expectProblem, jsonBody, keyOf, serve, type Served } from './support';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

let served: Served;
let key: string;
let readOnlyKey: string;
let otherKey: string;
const log: RequestLogEntry[] = [];

beforeAll(async () => {
  served = await serve({ onRequest: (entry) => log.push(entry) });
  key = keyOf(served.sim, 'Acme Outdoor');
  readOnlyKey = keyOf(served.sim, 'Acme Outdoor', true);
  otherKey = keyOf(served.sim, 'Nordic Home');
});
afterAll(() => served.close());

const get = (path: string, apiKey = key) => served.api(path, { headers: bearer(apiKey) });
const snapshot = () => served.sim.snapshot('Acme Outdoor');

describe('authentication and scoping', () => {
  it('answers 401 problem+json without a key or with an unknown one', async () => {
    const missing = await served.api('/tests');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expectProblem(missing, 401);
    await expectProblem(await get('/tests', 'sk_test_nope'), 401);
    await expectProblem(
      await served.api('/tests', { headers: { authorization: `Basic ${key}` } }),
      401,
    );
  });

  it('scopes every resource to the key’s store: another store’s test is 404', async () => {
    const other = served.sim.snapshot('Nordic Home').tests[0];
    await expectProblem(await get(`/tests/${other?.id}`), 404);
    await expectProblem(await get(`/tests/${other?.id}/results`), 404);
    const mine = (await expectJson(await get('/tests?perPage=100', otherKey))) as { data: Test[] };
    expect(mine.data.map((test) => test.id)).toContain(other?.id);
  });

  it('refuses writes with a read-only key (403) but serves its reads', async () => {
    await expectJson(await get('/tests', readOnlyKey));
    await expectProblem(
      await served.api('/tags', jsonBody(readOnlyKey, 'POST', { name: 'Read only' })),
      403,
    );
    await expectProblem(
      await served.api('/custom-audiences', jsonBody(readOnlyKey, 'POST', { name: 'Read only' })),
      403,
    );
    const campaign = snapshot().campaigns[0];
    await expectProblem(
      await served.api(
        `/campaigns/${campaign?.id}`,
        jsonBody(readOnlyKey, 'PATCH', { goal: null }),
      ),
      403,
    );
    const test = snapshot().tests[0];
    await expectProblem(
      await served.api(`/tests/${test?.id}`, jsonBody(readOnlyKey, 'PATCH', { title: 'x' })),
      403,
    );
  });
});

describe('routing', () => {
  it('answers unknown paths with 404 and wrong methods with 405 naming the allowed ones', async () => {
    await expectProblem(await get('/nothing-here'), 404);
    await expectProblem(await fetch(`${served.url}/elsewhere`, { headers: bearer(key) }), 404);
    const wrong = await served.api('/tests', { method: 'DELETE', headers: bearer(key) });
    expect(wrong.headers.get('allow')).toBe('GET');
    await expectProblem(wrong, 405);
    await expectProblem(await served.api('/campaigns/active', jsonBody(key, 'PATCH', {})), 405);
  });

  it('refuses a path id that is not a UUID with 400', async () => {
    await expectProblem(await get('/tests/not-a-uuid'), 400);
    await expectProblem(await get('/tests/%E0%A4%A/results'), 400);
  });
});

describe('GET /tests', () => {
  it('pages with defaults page 1 and perPage 25', async () => {
    const body = TestListResponse.parse(await expectJson(await get('/tests')));
    expect(body.pagination).toEqual({ page: 1, perPage: 25, totalPages: 10, totalCount: 250 });
    expect(body.data).toEqual(snapshot().tests.slice(0, 25));
  });

  it('lists every test exactly once across pages, newest first, ties by id', async () => {
    const ids: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const body = TestListResponse.parse(
        await expectJson(await get(`/tests?page=${page}&perPage=100`)),
      );
      expect(body.pagination).toEqual({ page, perPage: 100, totalPages: 3, totalCount: 250 });
      ids.push(...body.data.map((record) => Test.parse(record).id));
    }
    expect(ids).toEqual(snapshot().tests.map((test) => test.id));
    const created = snapshot().tests.map((test) => Date.parse(test.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it('filters by status with an accurate total', async () => {
    const active = snapshot().tests.filter((test) => test.status === 'active');
    const body = TestListResponse.parse(
      await expectJson(await get('/tests?status=active&perPage=100')),
    );
    expect(body.pagination.totalCount).toBe(active.length);
    expect(body.data.map((record) => Test.parse(record).id)).toEqual(active.map((test) => test.id));
  });

  it('returns an empty page past the last one, with the true pagination', async () => {
    const body = TestListResponse.parse(await expectJson(await get('/tests?page=99&perPage=50')));
    expect(body).toEqual({
      data: [],
      pagination: { page: 99, perPage: 50, totalPages: 5, totalCount: 250 },
    });
  });

  it.each([
    'status=running',
    'page=0',
    'page=-1',
    'page=1.5',
    'page=abc',
    'page=',
    'page=99999999999',
    'perPage=0',
    'perPage=101',
    'perPage=1e2',
    'page=1&page=2',
  ])('answers %s with 400 problem+json', async (query) => {
    await expectProblem(await get(`/tests?${query}`), 400);
  });
});

describe('GET /tests/{id} and results', () => {
  it('returns one test as listed', async () => {
    const test = snapshot().tests[3];
    expect(await expectJson(await get(`/tests/${test?.id}`))).toEqual(test);
    await expectProblem(await get(`/tests/${UNKNOWN_ID}`), 404);
  });

  it('returns results of a launched test and 404 for a test never launched', async () => {
    const launched = snapshot().tests.find((test) => isLaunched(test.status));
    const draft = snapshot().tests.find((test) => test.status === 'draft');
    const results = TestResults.parse(
      await expectJson(await get(`/tests/${launched?.id}/results`)),
    );
    expect(results).toEqual(served.sim.results('Acme Outdoor', launched?.id ?? ''));
    const problem = await expectProblem(await get(`/tests/${draft?.id}/results`), 404);
    expect(problem.detail).toMatch(/not been launched/);
    await expectProblem(await get(`/tests/${UNKNOWN_ID}/results`), 404);
  });
});

describe('custom audiences', () => {
  it('lists the store’s own audiences only', async () => {
    const body = CustomAudienceListResponse.parse(await expectJson(await get('/custom-audiences')));
    expect(body.customAudiences).toEqual(snapshot().customAudiences);
    const defaults = new Set(snapshot().defaultAudiences.map((audience) => audience.id));
    expect(
      body.customAudiences.some((audience) => defaults.has(CustomAudience.parse(audience).id)),
    ).toBe(false);
  });

  it('creates an audience (201 with the audience), refusing an exact duplicate name with 400', async () => {
    const rules = [{ dimension: 'country', operator: 'equals', values: ['NO'], selector: null }];
    const created = CustomAudience.parse(
      await expectJson(
        await served.api('/custom-audiences', jsonBody(key, 'POST', { name: 'Norway', rules })),
        201,
      ),
    );
    expect(created).toMatchObject({ name: 'Norway', rules });
    expect(snapshot().customAudiences).toContainEqual(created);
    const withoutRules = CustomAudience.parse(
      await expectJson(
        await served.api('/custom-audiences', jsonBody(key, 'POST', { name: 'norway' })),
        201,
      ),
    );
    expect(withoutRules.rules).toEqual([]);
    const duplicate = await expectProblem(
      await served.api('/custom-audiences', jsonBody(key, 'POST', { name: 'Norway' })),
      400,
    );
    expect(duplicate.detail).toMatch(/Norway/);
  });

  it.each([
    ['no name', { rules: [] }],
    ['an empty name', { name: '' }],
    ['an unknown field', { name: 'X', colour: 'red' }],
    ['a malformed rule', { name: 'Y', rules: [{ dimension: 'country' }] }],
    ['malformed JSON', '{"name": '],
  ])('answers a body with %s with 400', async (_, body) => {
    await expectProblem(await served.api('/custom-audiences', jsonBody(key, 'POST', body)), 400);
  });

  it('answers a body that is not JSON with 415', async () => {
    await expectProblem(
      await served.api('/custom-audiences', {
        method: 'POST',
        headers: bearer(key),
        body: 'name=x',
      }),
      415,
    );
  });
});

describe('tags', () => {
  it('creates a tag (201 { id }) and refuses a name that differs only in case with 409', async () => {
    const { id } = CreatedTagResponse.parse(
      await expectJson(
        await served.api('/tags', jsonBody(key, 'POST', { name: 'Experiment Ideas' })),
        201,
      ),
    );
    expect(snapshot().tags).toContainEqual({ id, name: 'Experiment Ideas' });
    await expectProblem(
      await served.api('/tags', jsonBody(key, 'POST', { name: 'EXPERIMENT ideas' })),
      409,
    );
    // Names are unique per store: another store may have the same one.
    await expectJson(
      await served.api('/tags', jsonBody(otherKey, 'POST', { name: 'Experiment Ideas' })),
      201,
    );
  });

  it('answers a bad body with 400', async () => {
    await expectProblem(await served.api('/tags', jsonBody(key, 'POST', { name: 42 })), 400);
    await expectProblem(await served.api('/tags', jsonBody(key, 'POST', {})), 400);
    await expectProblem(await served.api('/tags', jsonBody(key, 'POST', 'null')), 400);
  });
});

describe('campaigns', () => {
  it('lists active campaigns only', async () => {
    const body = ActiveCampaignsResponse.parse(await expectJson(await get('/campaigns/active')));
    const active = snapshot().campaigns.filter((campaign) => campaign.status === 'active');
    expect(body.campaigns).toEqual(active);
    expect(active.length).toBeLessThan(snapshot().campaigns.length);
  });

  it('counts progress from the campaign’s tests', async () => {
    const [campaign] = snapshot().campaigns;
    const tests = snapshot().tests.filter((test) => test.campaign?.id === campaign?.id);
    expect(campaign?.progress.total).toBe(tests.length);
    expect(campaign?.progress.live).toBe(tests.filter((test) => test.status === 'active').length);
  });

  it('updates a campaign partially: omitted fields stay, null clears, the new name shows everywhere', async () => {
    const campaign =
      snapshot().campaigns.find((each) => each.objective !== null && each.goal !== null) ??
      snapshot().campaigns[0];
    const path = `/campaigns/${campaign?.id}`;
    const renamed = Campaign.parse(
      await expectJson(
        await served.api(path, jsonBody(key, 'PATCH', { name: 'Renamed campaign' })),
      ),
    );
    expect(renamed).toEqual({ ...campaign, name: 'Renamed campaign' });
    const cleared = Campaign.parse(
      await expectJson(
        await served.api(path, jsonBody(key, 'PATCH', { objective: null, goal: null })),
      ),
    );
    expect(cleared).toEqual({ ...campaign, name: 'Renamed campaign', objective: null, goal: null });
    const embedding = snapshot().tests.filter((test) => test.campaign?.id === campaign?.id);
    for (const test of embedding) expect(test.campaign?.name).toBe('Renamed campaign');
  });

  it('answers null name 400, a taken name 409, an unknown campaign 404', async () => {
    const [first, second] = snapshot().campaigns;
    await expectProblem(
      await served.api(`/campaigns/${first?.id}`, jsonBody(key, 'PATCH', { name: null })),
      400,
    );
    await expectProblem(
      await served.api(
        `/campaigns/${first?.id}`,
        jsonBody(key, 'PATCH', { name: second?.name.toUpperCase() }),
      ),
      409,
    );
    await expectProblem(
      await served.api(`/campaigns/${first?.id}`, jsonBody(key, 'PATCH', { status: 'ended' })),
      400,
    );
    await expectProblem(
      await served.api(`/campaigns/${UNKNOWN_ID}`, jsonBody(key, 'PATCH', { goal: null })),
      404,
    );
    await expectProblem(
      await served.api('/campaigns/nope', jsonBody(key, 'PATCH', { goal: null })),
      400,
    );
  });
});

describe('request log', () => {
  it('logs method, path, status and time of every request, never the key', () => {
    expect(log.length).toBeGreaterThan(20);
    for (const entry of log) {
      expect(Object.keys(entry).sort()).toEqual(['method', 'ms', 'path', 'status']);
      expect(JSON.stringify(entry)).not.toContain('sk_test_');
    }
    expect(log).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        path: '/api/public/v1/tests?status=active&perPage=100',
        status: 200,
      }),
    );
    const stats = served.sim.stats();
    expect(stats.requests).toBe(log.length);
    expect(stats.byRoute['GET /tests']?.['200']).toBeGreaterThan(0);
    expect(stats.byStatus['401']).toBe(3);
  });
});
