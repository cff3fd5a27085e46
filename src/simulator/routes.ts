// The nine endpoints of the Store Experimentation Public API, each a function of the request and its store.
//
// Choices where the spec is silent:
// - GET /tests: `page` 1-based (default 1), `perPage` default 25, max 100; both plain decimal integers,
//   anything else 400. A page past the last returns `data: []` with the true pagination. totalPages is
//   ceil(totalCount / perPage), so 0 for no tests. `status` must be a known status (else 400). Other query
//   parameters are ignored. Order: createdAt descending, then id.
// - A path id that is not a UUID: 400. An id the store does not hold (or another store's): 404.
// - Request bodies must be `application/json` (415 otherwise), at most 1 MB (413), valid JSON (400) and
//   match the body schema, unknown fields refused (400 naming them).
// - POST /custom-audiences: `rules` optional (default []); 201 with the created audience as the body.
// - PATCH /campaigns/{id}: works on any campaign of the store; `name: null` is 400 (a campaign needs a name);
//   a name another campaign has (case-insensitive) is 409; 200 with the updated campaign.
import type { z } from 'zod';
import { summarizeIssues } from '#shared/validation';
import {
  CreateCustomAudienceBody,
  CreateTagBody,
  TEST_STATUSES,
  UpdateCampaignBody,
  UpdateTestBody,
  Uuid,
  type Test,
} from '#shared/api/index';
import { badRequest, conflict, json, noContent, notFound, problem } from './responses';
import type { StoreState } from './store-state';
import { updateTest } from './test-updates';

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;
export const MAX_BODY_BYTES = 1_000_000;
const INT32_MAX = 2_147_483_647;

export type RouteContext = {
  request: Request;
  url: URL;
  /** The `{id}` path segment, when the route has one. */
  id: string;
  store: StoreState;
  /** The simulated time, in ms. */
  now: number;
  /** How a test record is served: as is, or broken by a fault. */
  present(test: Test): unknown;
};

type Endpoint = (context: RouteContext) => Response | Promise<Response>;

export type Route = { pattern: string; methods: Readonly<Record<string, Endpoint>> };

// ---------- request helpers ----------

type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

async function readBody<T>(request: Request, schema: z.ZodType<T>): Promise<Parsed<T>> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    return {
      ok: false,
      response: problem(
        415,
        'unsupported-media-type',
        'Unsupported media type',
        'The body must be JSON, sent as application/json',
      ),
    };
  }
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) {
    return {
      ok: false,
      response: problem(
        413,
        'payload-too-large',
        'Payload too large',
        `The body must be at most ${MAX_BODY_BYTES} bytes`,
      ),
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      response: problem(
        400,
        'malformed-json',
        'Malformed JSON',
        `The body is not valid JSON: ${reason}`,
      ),
    };
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    return {
      ok: false,
      response: badRequest(summarizeIssues(parsed.error.issues, { root: 'body' })),
    };
  return { ok: true, value: parsed.data };
}

function checkUuid(id: string): Response | null {
  return Uuid.safeParse(id).success ? null : badRequest(`'${id}' is not a UUID`);
}

/** One optional query parameter, given at most once. */
function queryParam(url: URL, name: string): Parsed<string | undefined> {
  const values = url.searchParams.getAll(name);
  if (values.length > 1)
    return { ok: false, response: badRequest(`'${name}' must be given at most once`) };
  return { ok: true, value: values[0] };
}

function integerParam(url: URL, name: string, fallback: number, max: number): Parsed<number> {
  const raw = queryParam(url, name);
  if (!raw.ok || raw.value === undefined) return raw.ok ? { ok: true, value: fallback } : raw;
  const value = /^\d{1,10}$/.test(raw.value) ? Number(raw.value) : Number.NaN;
  if (!(value >= 1 && value <= max)) {
    return {
      ok: false,
      response: badRequest(`'${name}' must be an integer from 1 to ${max}, got '${raw.value}'`),
    };
  }
  return { ok: true, value };
}

function findTest(context: RouteContext): Parsed<Test> {
  const invalid = checkUuid(context.id);
  if (invalid !== null) return { ok: false, response: invalid };
  const test = context.store.getTest(context.id);
  if (test === undefined)
    return { ok: false, response: notFound(`No test ${context.id} in this store`) };
  return { ok: true, value: test };
}

// ---------- endpoints ----------

function listTests(context: RouteContext): Response {
  const { url, store } = context;
  const status = queryParam(url, 'status');
  if (!status.ok) return status.response;
  if (status.value !== undefined && !(TEST_STATUSES as readonly string[]).includes(status.value)) {
    return badRequest(`'status' must be one of ${TEST_STATUSES.join(', ')}, got '${status.value}'`);
  }
  const page = integerParam(url, 'page', 1, INT32_MAX);
  if (!page.ok) return page.response;
  const perPage = integerParam(url, 'perPage', DEFAULT_PER_PAGE, MAX_PER_PAGE);
  if (!perPage.ok) return perPage.response;

  const { tests, totalCount } = store.page(
    status.value,
    (page.value - 1) * perPage.value,
    perPage.value,
  );
  return json(200, {
    data: tests.map(context.present),
    pagination: {
      page: page.value,
      perPage: perPage.value,
      totalPages: Math.ceil(totalCount / perPage.value),
      totalCount,
    },
  });
}

function getTest(context: RouteContext): Response {
  const test = findTest(context);
  return test.ok ? json(200, context.present(test.value)) : test.response;
}

async function patchTest(context: RouteContext): Promise<Response> {
  const test = findTest(context);
  if (!test.ok) return test.response;
  const body = await readBody(context.request, UpdateTestBody);
  if (!body.ok) return body.response;
  const outcome = updateTest(context.store, test.value, body.value, context.now);
  if (!outcome.ok) return outcome.response;
  context.store.saveTest(outcome.test);
  return noContent();
}

function getResults(context: RouteContext): Response {
  const test = findTest(context);
  if (!test.ok) return test.response;
  const results = context.store.resultsOf(test.value, context.now);
  if (results === null)
    return notFound(
      `Test ${context.id} has not been launched (status: ${test.value.status}): it has no results`,
    );
  return json(200, results);
}

function listCustomAudiences(context: RouteContext): Response {
  return json(200, { customAudiences: context.store.customAudiences });
}

async function createCustomAudience(context: RouteContext): Promise<Response> {
  const body = await readBody(context.request, CreateCustomAudienceBody);
  if (!body.ok) return body.response;
  const { store } = context;
  if (store.customAudiences.some((audience) => audience.name === body.value.name)) {
    return problem(
      400,
      'duplicate-name',
      'Duplicate name',
      `A custom audience named '${body.value.name}' already exists`,
    );
  }
  const audience = { id: store.newId(), name: body.value.name, rules: body.value.rules ?? [] };
  store.customAudiences.push(audience);
  return json(201, audience);
}

function activeCampaigns(context: RouteContext): Response {
  return json(200, {
    campaigns: context.store
      .campaignsWithProgress()
      .filter((campaign) => campaign.status === 'active'),
  });
}

async function patchCampaign(context: RouteContext): Promise<Response> {
  const invalid = checkUuid(context.id);
  if (invalid !== null) return invalid;
  const { store } = context;
  const campaign = store.campaigns.find((each) => each.id === context.id);
  if (campaign === undefined) return notFound(`No campaign ${context.id} in this store`);
  const body = await readBody(context.request, UpdateCampaignBody);
  if (!body.ok) return body.response;
  const { name, objective, goal } = body.value;
  if (name === null)
    return badRequest("'name' cannot be null: a campaign always has a name", { field: 'name' });
  if (name !== undefined) {
    const taken = store.campaigns.some(
      (each) => each.id !== campaign.id && each.name.toLowerCase() === name.toLowerCase(),
    );
    if (taken) return conflict(`Another campaign is already named '${name}'`);
  }
  const updated = {
    ...campaign,
    ...(name === undefined ? {} : { name }),
    ...(objective === undefined ? {} : { objective }),
    ...(goal === undefined ? {} : { goal }),
  };
  store.saveCampaign(updated);
  const served = store.campaignsWithProgress().find((each) => each.id === campaign.id);
  return json(200, served ?? updated);
}

async function createTag(context: RouteContext): Promise<Response> {
  const body = await readBody(context.request, CreateTagBody);
  if (!body.ok) return body.response;
  const { store } = context;
  if (store.hasTagNamed(body.value.name))
    return conflict(`A tag named '${body.value.name}' already exists (names ignore case)`);
  const tag = { id: store.newId(), name: body.value.name };
  store.tags.push(tag);
  return json(201, { id: tag.id });
}

/** Paths relative to API_PREFIX; a literal segment is listed before a `{id}` route it would also match. */
export const ROUTES: readonly Route[] = [
  { pattern: '/tests', methods: { GET: listTests } },
  { pattern: '/tests/{id}', methods: { GET: getTest, PATCH: patchTest } },
  { pattern: '/tests/{id}/results', methods: { GET: getResults } },
  {
    pattern: '/custom-audiences',
    methods: { GET: listCustomAudiences, POST: createCustomAudience },
  },
  { pattern: '/campaigns/active', methods: { GET: activeCampaigns } },
  { pattern: '/campaigns/{id}', methods: { PATCH: patchCampaign } },
  { pattern: '/tags', methods: { POST: createTag } },
];

export const API_PREFIX = '/api/public/v1';

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a broken %-escape stays as sent, and fails the UUID check
  }
}

/** The route a path names, with its `{id}` segment; null when none does. */
export function matchRoute(pathname: string): { route: Route; id: string } | null {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return null;
  const segments = pathname.slice(API_PREFIX.length).split('/');
  for (const route of ROUTES) {
    const expected = route.pattern.split('/');
    if (expected.length !== segments.length) continue;
    let id = '';
    const matches = expected.every((part, i) => {
      const actual = segments[i] ?? '';
      if (part !== '{id}') return part === actual;
      id = safeDecode(actual);
      return actual !== '';
    });
    if (matches) return { route, id };
  }
  return null;
}
