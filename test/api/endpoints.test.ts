// Every endpoint of the API, and every error status it defines, through the client over loopback HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '#core/api/index';
import { PROBLEM_TYPES, ProblemError } from '#shared/problem';
import { failure } from './support/failure';
import { API_KEY, READ_ONLY_KEY, STORE, serveSim, type ServedSim } from './support/simulator';

let served: ServedSim;
let client: ApiClient;

beforeAll(async () => {
  served = await serveSim();
  client = served.client();
});
afterAll(() => served.close());
beforeEach(() => served.sim.setRate(null));

const snapshot = () => served.sim.snapshot(STORE);
const launchedTest = () => {
  const test = snapshot().tests.find((t) => t.status === 'active');
  if (!test) throw new Error('The seeded store has no active test');
  return test;
};

describe('the nine endpoints', () => {
  it('GET /tests lists a page, with pagination, filtered by status', async () => {
    const page = await client.listTests({ page: 2, perPage: 10 });
    expect(page.items.map((t) => t.id)).toEqual(
      snapshot()
        .tests.slice(10, 20)
        .map((t) => t.id),
    );
    expect(page.rejected).toEqual([]);
    expect(page.pagination).toEqual({ page: 2, perPage: 10, totalPages: 3, totalCount: 30 });

    const active = await client.listTests({ status: 'active', perPage: 100 });
    expect(active.items.length).toBeGreaterThan(0);
    expect(active.items.every((t) => t.status === 'active')).toBe(true);
  });

  it('GET /tests/{id} returns one test', async () => {
    const expected = snapshot().tests[3];
    expect(expected).toBeDefined();
    if (!expected) return;
    expect(await client.getTest(expected.id)).toEqual(expected);
  });

  it('PATCH /tests/{id} applies a change and resolves on 204', async () => {
    const test = launchedTest();
    await expect(
      client.updateTest(test.id, { title: 'Renamed by Splitbook', priority: null }),
    ).resolves.toBeUndefined();
    expect(served.sim.snapshot(STORE).tests.find((t) => t.id === test.id)?.title).toBe(
      'Renamed by Splitbook',
    );
  });

  it('GET /tests/{id}/results returns the results of a launched test', async () => {
    const test = launchedTest();
    const results = await client.getResults(test.id);
    expect(results.id).toBe(test.id);
    expect(results).toEqual(served.sim.results(STORE, test.id));
  });

  it('POST /custom-audiences creates an audience, and GET /custom-audiences lists it', async () => {
    const rules = [{ dimension: 'country', operator: 'in', values: ['SE', 'NO'], selector: null }];
    const created = await client.createCustomAudience({ name: 'Nordics', rules });
    expect(created).toMatchObject({ name: 'Nordics', rules });
    const listed = await client.listCustomAudiences();
    expect(listed.rejected).toEqual([]);
    expect(listed.items.find((a) => a.name === 'Nordics')?.id).toBe(created?.id);
    expect(listed.items).toEqual(snapshot().customAudiences);
  });

  it('GET /campaigns/active lists the active campaigns, and PATCH /campaigns/{id} updates one', async () => {
    const active = await client.listActiveCampaigns();
    expect(active.rejected).toEqual([]);
    expect(active.items.map((c) => c.id)).toEqual(
      snapshot()
        .campaigns.filter((c) => c.status === 'active')
        .map((c) => c.id),
    );
    const campaign = active.items[0];
    expect(campaign).toBeDefined();
    if (!campaign) return;
    const updated = await client.updateCampaign(campaign.id, {
      objective: 'Grow basket size',
      goal: null,
    });
    expect(updated).toMatchObject({ id: campaign.id, objective: 'Grow basket size', goal: null });
  });

  it('POST /tags creates a tag and returns its id', async () => {
    const { id } = await client.createTag({ name: 'Reviewed in Splitbook' });
    expect(snapshot().tags).toContainEqual({ id, name: 'Reviewed in Splitbook' });
  });
});

describe('the defined error statuses', () => {
  it('400: a duplicate custom audience name, with the server problem carried', async () => {
    await client.createCustomAudience({ name: 'Returning buyers' });
    const error = await failure(client.createCustomAudience({ name: 'Returning buyers' }));
    expect(error).toMatchObject({
      kind: 'http',
      status: 400,
      retryable: false,
      title: 'Duplicate name',
    });
    expect(error.detail).toContain('Returning buyers');
    expect(error.problemType).toMatch(/duplicate-name$/);
    expect(error.toProblem().type).toBe(PROBLEM_TYPES.validation);
  });

  it('401: an unknown key', async () => {
    const stranger = createApiClient({
      baseUrl: served.url,
      apiKey: 'sk_test_nobody_knows_this_key_000000',
    });
    const error = await failure(stranger.listTests());
    expect(error).toMatchObject({ kind: 'unauthorized', status: 401, retryable: false });
    expect(error.toProblem()).toMatchObject({
      type: PROBLEM_TYPES.unauthorized,
      title: 'The API key was refused',
    });
  });

  it('403: a write with a read-only key', async () => {
    const readOnly = createApiClient({ baseUrl: served.url, apiKey: READ_ONLY_KEY });
    expect((await readOnly.listTests()).items).toHaveLength(25);
    const error = await failure(readOnly.createTag({ name: 'Nope' }));
    expect(error).toMatchObject({ kind: 'http', status: 403 });
    expect(error.toProblem().type).toBe(PROBLEM_TYPES.forbidden);
  });

  it('404: a test the store does not hold', async () => {
    const error = await failure(client.getResults('00000000-0000-4000-8000-000000000000'));
    expect(error).toMatchObject({
      kind: 'http',
      status: 404,
      method: 'GET',
      path: '/api/public/v1/tests/00000000-0000-4000-8000-000000000000/results',
    });
    expect(error.toProblem().type).toBe(PROBLEM_TYPES.notFound);
  });

  it('409: a duplicate tag name, compared without case', async () => {
    await client.createTag({ name: 'Splitbook duplicate' });
    const error = await failure(client.createTag({ name: 'SPLITBOOK DUPLICATE' }));
    expect(error).toMatchObject({ kind: 'http', status: 409 });
    expect(error.toProblem().type).toBe(PROBLEM_TYPES.conflict);
  });

  it('422: a field locked after launch', async () => {
    const error = await failure(client.updateTest(launchedTest().id, { goal: 'revenue' }));
    expect(error).toMatchObject({ kind: 'http', status: 422, retryable: false });
    expect(error.detail).toContain('goal');
    expect(error.toProblem().type).toBe(PROBLEM_TYPES.validation);
  });

  it('429: too many requests, once the attempts are used up', async () => {
    served.sim.setRate({ capacity: 1, refillPerSecond: 0.5 });
    const impatient = served.client({ maxAttempts: 1 });
    await impatient.listCustomAudiences();
    const error = await failure(impatient.listCustomAudiences());
    expect(error).toMatchObject({
      kind: 'rate-limited',
      status: 429,
      retryable: true,
      retryAfterMs: 2_000,
    });
    expect(error.toProblem()).toMatchObject({ type: PROBLEM_TYPES.api, status: 429 });
  });
});

describe('input checked before sending', () => {
  it('refuses an id that is not a UUID without a request', async () => {
    const before = served.sim.stats().requests;
    await expect(client.getTest('../campaigns/active')).rejects.toBeInstanceOf(ProblemError);
    await expect(client.updateTest('42', { title: 'x' })).rejects.toThrow('Not a valid id');
    expect(served.sim.stats().requests).toBe(before);
  });

  it('refuses a body the API would refuse, naming the field', async () => {
    const error = await client
      .updateTest(launchedTest().id, { impact: 2.5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error instanceof ProblemError && error.problem).toMatchObject({
      type: PROBLEM_TYPES.validation,
      detail: expect.stringMatching(/^impact: /),
    });
  });

  it('tolerates a trailing slash on the base URL', async () => {
    const slashed = createApiClient({ baseUrl: `${served.url}/`, apiKey: API_KEY });
    expect((await slashed.listTests({ perPage: 1 })).items).toHaveLength(1);
  });
});
