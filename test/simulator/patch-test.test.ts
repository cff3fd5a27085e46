// PATCH /tests/{id} over HTTP: what a status locks (422 naming the field), what each field does, and the 400s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedTagResponse, type Test } from '#shared/api/index';
import { isLaunched } from '#shared/domain/lifecycle';
import { expectJson, expectProblem, jsonBody, keyOf, serve, type Served } from './support';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

let served: Served;
let key: string;

beforeAll(async () => {
  served = await serve({
    stores: [
      { name: 'Shop', tests: 300 },
      { name: 'Other', tests: 10 },
    ],
  });
  key = keyOf(served.sim, 'Shop');
});
afterAll(() => served.close());

const tests = () => served.sim.snapshot('Shop').tests;
const current = (id: string) => tests().find((test) => test.id === id);
const patch = (id: string, body: unknown) =>
  served.api(`/tests/${id}`, jsonBody(key, 'PATCH', body));

/** A fresh test per case, so cases do not see each other's edits. */
const used = new Set<string>();
function aTest(keep: (test: Test) => boolean): Test {
  const test = tests().find((each) => !used.has(each.id) && keep(each));
  if (test === undefined) throw new Error('No test left for this case');
  used.add(test.id);
  return test;
}
const draftWithVariant = () => aTest((test) => test.status === 'draft' && test.variant !== null);

describe('before launch', () => {
  it('changes any field of a draft, answers 204 and moves updatedAt', async () => {
    const test = draftWithVariant();
    const snapshot = served.sim.snapshot('Shop');
    const [tag] = snapshot.tags;
    const [audience] = snapshot.customAudiences;
    const [defaultAudience] = snapshot.defaultAudiences;
    const [campaign] = snapshot.campaigns;
    const response = await patch(test.id, {
      title: 'Checkout trust badges',
      goal: 'revenue-per-visitor',
      device: 'mobile',
      visitorOption: 'new',
      controlTraffic: 70,
      controlTitle: 'Today',
      variantTitle: 'With badges',
      tagIds: [tag?.id],
      customAudienceIds: [audience?.id],
      defaultAudiences: [defaultAudience?.id],
      campaignId: campaign?.id,
      priority: 'high',
      impact: 4,
      automaticallyStartAt: '2026-07-01T08:00:00Z',
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const after = await expectJson(
      await served.api(`/tests/${test.id}`, { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(after).toMatchObject({
      title: 'Checkout trust badges',
      goal: 'revenue-per-visitor',
      device: 'mobile',
      visitorOption: 'new',
      control: { traffic: 70, title: 'Today' },
      variant: { traffic: 30, title: 'With badges' },
      tags: [tag],
      customAudiences: [audience],
      defaultAudiences: [defaultAudience],
      campaign: { id: campaign?.id, name: campaign?.name },
      priority: 'high',
      impact: 4,
      automaticallyStartAt: '2026-07-01T08:00:00Z',
    });
    expect(Date.parse(current(test.id)?.updatedAt ?? '')).toBeGreaterThan(
      Date.parse(test.updatedAt),
    );
  });

  it('clears nullable fields with null', async () => {
    const test = aTest(
      (each) => each.status === 'draft' && each.campaign !== null && each.tags.length > 0,
    );
    expect(
      (
        await patch(test.id, {
          campaignId: null,
          tagIds: null,
          hypothesisDescription: null,
          priority: null,
        })
      ).status,
    ).toBe(204);
    expect(current(test.id)).toMatchObject({
      campaign: null,
      tags: [],
      hypothesisDescription: null,
      priority: null,
    });
  });

  it('removes and adds a variant', async () => {
    const test = draftWithVariant();
    expect((await patch(test.id, { variant: null })).status).toBe(204);
    expect(current(test.id)).toMatchObject({ variant: null, control: { traffic: 100 } });
    expect((await patch(test.id, { variant: { title: 'Second try' } })).status).toBe(204);
    expect(current(test.id)).toMatchObject({
      variant: { title: 'Second try', traffic: 50 },
      control: { traffic: 50 },
    });
  });

  it('refuses implemented before the test has ended, with 422', async () => {
    const problem = await expectProblem(
      await patch(draftWithVariant().id, { implemented: true }),
      422,
    );
    expect(problem.field).toBe('implemented');
  });
});

describe('after launch', () => {
  it('keeps metadata fields mutable', async () => {
    const test = aTest((each) => each.status === 'active');
    const before = current(test.id);
    const response = await patch(test.id, {
      title: 'Renamed',
      hypothesisDescription: 'Because',
      controlTitle: 'A',
      variantTitle: 'B',
      priority: 'low',
      surfaceArea: 'checkout',
      impact: 2,
      effort: 5,
      tagIds: [],
    });
    expect(response.status).toBe(204);
    expect(current(test.id)).toMatchObject({
      title: 'Renamed',
      hypothesisDescription: 'Because',
      priority: 'low',
      surfaceArea: 'checkout',
      impact: 2,
      effort: 5,
      tags: [],
    });
    expect(current(test.id)?.goal).toBe(before?.goal);
  });

  it.each([
    'goal',
    'device',
    'visitorOption',
    'controlTraffic',
    'customAudienceIds',
    'defaultAudiences',
    'campaignId',
    'variant',
    'automaticallyStartAt',
    'automaticallyEndAt',
    'endWhenSignificant',
  ])('locks %s: 422 problem naming the field, nothing changes', async (field) => {
    const test = aTest((each) => isLaunched(each.status));
    const values: Record<string, unknown> = {
      controlTraffic: 60,
      endWhenSignificant: true,
      variant: { title: 'x' },
      customAudienceIds: [],
      defaultAudiences: [],
      campaignId: null,
    };
    const problem = await expectProblem(
      await patch(test.id, { title: 'Allowed', [field]: values[field] ?? 'conversion-rate' }),
      422,
    );
    expect(problem).toMatchObject({ title: 'Field is locked', field });
    expect(problem.type).toMatch(/locked-field$/);
    expect(problem.detail).toContain(field);
    expect(current(test.id)).toEqual(test);
  });

  it('lets implemented change once the test has ended', async () => {
    const completed = aTest((each) => each.status === 'completed');
    expect((await patch(completed.id, { implemented: true })).status).toBe(204);
    expect(current(completed.id)?.implemented).toBe(true);
    const active = aTest((each) => each.status === 'active');
    expect((await expectProblem(await patch(active.id, { implemented: true }), 422)).field).toBe(
      'implemented',
    );
  });
});

describe('invalid updates', () => {
  it('refuses an unknown field with 400 naming it', async () => {
    const test = draftWithVariant();
    const problem = await expectProblem(await patch(test.id, { title: 'x', colour: 'red' }), 400);
    expect(problem.detail).toContain('colour');
    expect(current(test.id)).toEqual(test);
  });

  it.each([
    ['a wrong type', { impact: 'high' }],
    ['malformed JSON', '{"title": '],
    ['a body that is not an object', '[1, 2]'],
    ['a null title', { title: null }],
    ['an empty title', { title: '  ' }],
    ['an unknown goal', { goal: 'happiness' }],
    ['an unknown device', { device: 'tablet' }],
    ['an impact out of 1..5', { impact: 9 }],
    ['traffic over 100', { controlTraffic: 120 }],
    ['an unknown tag', { tagIds: [UNKNOWN_ID] }],
    ['a tag id that is not a UUID', { tagIds: ['tag-1'] }],
    ['an unknown custom audience', { customAudienceIds: [UNKNOWN_ID] }],
    ['an unknown default audience', { defaultAudiences: [UNKNOWN_ID] }],
    ['an unknown campaign', { campaignId: UNKNOWN_ID }],
    ['a bad date', { automaticallyEndAt: 'next tuesday' }],
    ['a bad variant', { variant: { colour: 'red' } }],
  ])('answers %s with 400 and changes nothing', async (_, body) => {
    const test = draftWithVariant();
    await expectProblem(await patch(test.id, body), 400);
    expect(current(test.id)).toEqual(test);
  });

  it('answers an unknown or foreign test with 404', async () => {
    await expectProblem(await patch(UNKNOWN_ID, { title: 'x' }), 404);
    const foreign = served.sim.snapshot('Other').tests[0];
    await expectProblem(await patch(foreign?.id ?? '', { title: 'x' }), 404);
  });

  it('accepts a tag created through the API', async () => {
    const created = await served.api('/tags', jsonBody(key, 'POST', { name: 'Fresh tag' }));
    const { id } = CreatedTagResponse.parse(await created.json());
    const test = aTest((each) => each.status === 'completed');
    expect((await patch(test.id, { tagIds: [id, id] })).status).toBe(204);
    expect(current(test.id)?.tags).toEqual([{ id, name: 'Fresh tag' }]);
  });
});
