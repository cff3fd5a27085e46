// The typed client of one store's Store Experimentation API: one method per endpoint, plus a walk of all test pages.
import type { z } from 'zod';
import {
  ActiveCampaignsResponse,
  Campaign,
  CreateCustomAudienceBody,
  CreateTagBody,
  CreatedTagResponse,
  CustomAudience,
  CustomAudienceListResponse,
  Test,
  TestListQuery,
  TestListResponse,
  TestResults,
  UpdateCampaignBody,
  UpdateTestBody,
  Uuid,
  type Pagination,
} from '#shared/api/index';
import { problem } from '#shared/problem';
import { checkApiKey, normaliseBaseUrl, PREFIX } from './base-url';
import { sleep as realSleep } from './backoff';
import { ApiError, scrubSecret } from './errors';
import { createRequestLimiter, type RequestLimiter } from './limiter';
import { isolateRecords, type ListingRead } from './isolate';
import { impossiblePagination, walkCeiling } from './pagination';
import { parseRecords, type RejectedRecord } from './records';
import { summarizeIssues } from '#shared/validation';
import type { ApiReply, ApiRequest, RequestEvent } from './request';
import { createTransport } from './transport';

const NO_READABLE_BODY = 'The answer has no readable body.';

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** The store's limiter, shared by every client of that store; one is created if absent. */
  limiter?: RequestLimiter;
  /** Per attempt, body included. Default 15 s. */
  timeoutMs?: number;
  /** Most bytes read from one answer: results are large by nature, every other answer is small. */
  maxBodyBytes?: { results?: number; other?: number };
  /** Attempts per call, the first included. Default 6. */
  maxAttempts?: number;
  /** Cap of the exponential backoff between attempts. Default 30 s. */
  maxBackoffMs?: number;
  /** A Retry-After longer than this ends the call with a rate-limited error instead of waiting. Default 120 s. */
  maxRetryAfterMs?: number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Called after every attempt, with nothing secret in it. */
  onRequest?: (event: RequestEvent) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface TestListPage {
  items: Test[];
  rejected: RejectedRecord[];
  pagination: Pagination;
}

/** A page of a walk: the records at its positions, however many requests it took to read them. */
export interface WalkedPage extends TestListPage {
  page: number;
  /**
   * The page was read again in smaller pages (one record made it too large or unreadable) and the
   * listing's count moved meanwhile: records may have shifted, so the listing proves nothing missing.
   */
  shifted: boolean;
}

export interface RecordList<T> {
  items: T[];
  rejected: RejectedRecord[];
}

export interface WalkOptions extends CallOptions {
  /** Default 100. */
  perPage?: number;
  /** Default 1: a resumed walk starts where the last one stopped. */
  startPage?: number;
  /**
   * Pages requested ahead of the one the caller is handling (default 0: one page at a time). Pages
   * are still yielded strictly in order and checked as before; a page ahead is only asked for when
   * the last page read announces it and the walk's ceiling allows it, and one not yet yielded when
   * the walk ends is cancelled.
   */
  ahead?: number;
}

/**
 * What a decoder made of an answer's text (getResultsWith): its value; `unreadable` when it is not
 * JSON (the GET is asked again, as a broken transfer); `invalid` when it is JSON but not what was
 * asked for, with the schema's complaint (summarizeIssues), which fails the call as an invalid response.
 */
export type Decoded<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'invalid'; detail: string };

export interface ApiClient {
  listTests(query?: TestListQuery, opts?: CallOptions): Promise<TestListPage>;
  getTest(id: string, opts?: CallOptions): Promise<Test>;
  updateTest(id: string, body: UpdateTestBody, opts?: CallOptions): Promise<void>;
  getResults(id: string, opts?: CallOptions): Promise<TestResults>;
  /**
   * A test's results as `decode` reads them from the answer's text: the same request, retries and
   * errors as getResults, whose own reading is JSON.parse and the TestResults schema. The sync reads
   * results so on another thread (sync/decode).
   */
  getResultsWith<T>(
    id: string,
    decode: (text: string) => Promise<Decoded<T>>,
    opts?: CallOptions,
  ): Promise<T>;
  /** The created audience, or null: the spec does not show the 201 body. */
  createCustomAudience(
    body: CreateCustomAudienceBody,
    opts?: CallOptions,
  ): Promise<CustomAudience | null>;
  listCustomAudiences(opts?: CallOptions): Promise<RecordList<CustomAudience>>;
  /** The updated campaign, or null: the spec does not show the 200 body. */
  updateCampaign(
    id: string,
    body: UpdateCampaignBody,
    opts?: CallOptions,
  ): Promise<Campaign | null>;
  listActiveCampaigns(opts?: CallOptions): Promise<RecordList<Campaign>>;
  createTag(body: CreateTagBody, opts?: CallOptions): Promise<{ id: string }>;
  /**
   * Every page of GET /tests in order, ending at `totalPages`, and never endless whatever the server
   * says. A page too large or not JSON is read again in smaller pages, down to one record, and only
   * the record that still does not fit is rejected (see isolate.ts).
   */
  walkTests(opts?: WalkOptions): AsyncGenerator<WalkedPage, void, undefined>;
}

/** A test's results (every side, segment and day) can be large; 64 MiB is far beyond any real one. */
export const RESULTS_MAX_BYTES = 64 * 1024 * 1024;
/** A page of 100 tests, a campaign or audience list, a problem: 8 MiB is far beyond any real one. */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = normaliseBaseUrl(options.baseUrl);
  const apiKey = checkApiKey(options.apiKey);
  const host = base.host;
  const resultsMaxBytes = positive(
    options.maxBodyBytes?.results ?? RESULTS_MAX_BYTES,
    'maxBodyBytes.results',
  );
  const send = createTransport({
    baseUrl: base.href,
    host,
    apiKey,
    fetch: options.fetch ?? globalThis.fetch,
    limiter: options.limiter ?? createRequestLimiter(),
    timeoutMs: positive(options.timeoutMs ?? 15_000, 'timeoutMs'),
    maxBodyBytes: positive(options.maxBodyBytes?.other ?? DEFAULT_MAX_BYTES, 'maxBodyBytes'),
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? 6)),
    maxBackoffMs: Math.max(0, options.maxBackoffMs ?? 30_000),
    maxRetryAfterMs: Math.max(0, options.maxRetryAfterMs ?? 120_000),
    random: options.random ?? Math.random,
    sleep: options.sleep ?? realSleep,
    now: options.now ?? Date.now,
    onRequest: options.onRequest,
  });

  /** The body a reader expects, or an invalid-response error that says which part did not fit. */
  function expect<S extends z.ZodType>(
    request: ApiRequest,
    reply: ApiReply,
    schema: S,
  ): z.infer<S> {
    const value = reply.body.kind === 'json' ? reply.body.value : undefined;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw invalidResponse(
      request,
      reply.status,
      reply.body.kind === 'json' ? summarizeIssues(parsed.error.issues) : NO_READABLE_BODY,
    );
  }

  function invalidResponse(request: ApiRequest, status: number, detail: string): ApiError {
    return new ApiError({
      kind: 'invalid-response',
      status,
      title: 'Unexpected response',
      detail: scrubSecret(detail, apiKey),
      retryable: false,
      method: request.method,
      path: request.path,
      host,
    });
  }

  /** A body the spec leaves unshown: the resource when it is one, else null, never an error after a success. */
  function optional<T>(reply: ApiReply, schema: z.ZodType<T>): T | null {
    if (reply.body.kind !== 'json') return null;
    const parsed = schema.safeParse(reply.body.value);
    return parsed.success ? parsed.data : null;
  }

  async function call(request: ApiRequest, opts?: CallOptions): Promise<ApiReply> {
    return send(request, opts?.signal);
  }

  function listingRequest(query: TestListQuery): ApiRequest {
    const q = input(TestListQuery, query, 'The test list query is not valid');
    const params = new URLSearchParams();
    if (q.status !== undefined) params.set('status', q.status);
    if (q.page !== undefined) params.set('page', String(q.page));
    if (q.perPage !== undefined) params.set('perPage', String(q.perPage));
    const search = params.toString();
    return { method: 'GET', path: `${PREFIX}/tests${search ? `?${search}` : ''}` };
  }

  async function listTests(query: TestListQuery = {}, opts?: CallOptions): Promise<TestListPage> {
    const request = listingRequest(query);
    return listingPage(request, await call(request, opts));
  }

  /** A walk's page: an answer too large or not JSON comes back unfit, to be read in smaller pages. */
  async function readListing(
    page: number,
    perPage: number,
    signal: AbortSignal,
  ): Promise<ListingRead> {
    const request: ApiRequest = { ...listingRequest({ page, perPage }), splittable: true };
    const reply = await call(request, { signal });
    if (reply.body.kind === 'unfit') {
      const { error, reason, head } = reply.body;
      return { type: 'unfit', error, reason, head };
    }
    return { type: 'page', ...listingPage(request, reply) };
  }

  function listingPage(request: ApiRequest, reply: ApiReply): TestListPage {
    const envelope = expect(request, reply, TestListResponse);
    const impossible = impossiblePagination(envelope.pagination, envelope.data.length);
    if (impossible) {
      throw new ApiError({
        kind: 'invalid-response',
        status: 200,
        title: "The test list's page counts contradict themselves",
        detail: `Splitbook cannot trust this listing: ${impossible}.`,
        retryable: false,
        method: request.method,
        path: request.path,
        host,
      });
    }
    return { ...parseRecords(Test, envelope.data), pagination: envelope.pagination };
  }

  async function* walkTests(opts: WalkOptions = {}): AsyncGenerator<WalkedPage, void, undefined> {
    const perPage = opts.perPage ?? 100;
    const ahead = Math.max(0, Math.floor(opts.ahead ?? 0));
    let page = opts.startPage ?? 1;
    let limit: number | null = null;
    // The counts of the last page read whole: those of a page read again in smaller pages, none of them readable.
    let known: Pagination | null = null;
    // Every id listed so far: a page made only of ids already seen means the server ignores `page`.
    const seen = new Set<string>();
    // Pages asked for ahead of the one being handled, cancelled together when the walk ends early.
    const pending = new Map<number, Promise<Omit<WalkedPage, 'page'>>>();
    const cancel = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, cancel.signal]) : cancel.signal;
    const readPage = async (n: number): Promise<Omit<WalkedPage, 'page'>> => {
      const read = await readListing(n, perPage, signal);
      if (read.type === 'page') {
        const { items, rejected, pagination } = read;
        return { items, rejected, pagination, shifted: false };
      }
      return isolateRecords(n, perPage, read, (p, size) => readListing(p, size, signal), known);
    };
    const request = (n: number): Promise<Omit<WalkedPage, 'page'>> => {
      const asked = readPage(n);
      // A page dropped when the walk ends must not surface as an unhandled rejection.
      asked.catch(() => undefined);
      return asked;
    };
    try {
      for (;;) {
        const result = await (pending.get(page) ?? request(page));
        pending.delete(page);
        const ids = [
          ...result.items.map((t) => t.id),
          // A record without an id counts by its place, so two of them are not "the same page".
          ...result.rejected.map((r) => r.id ?? `#${(page - 1) * perPage + r.index}`),
        ];
        if (ids.length > 0 && ids.every((id) => seen.has(id))) {
          throw walkError(page, 'it sent the same page twice');
        }
        for (const id of ids) seen.add(id);
        known = result.pagination;
        const { totalPages, totalCount } = result.pagination;
        // An empty page means the listing ended early (tests were deleted while we walked).
        const last = page >= totalPages || ids.length === 0;
        // The ceiling is set once, from what the first page claimed and the page size it actually
        // had: a listing may grow while it is walked, but not without bound, and never past
        // MAX_LISTED_TESTS whatever totalPages says (2^31-1 pages would never end).
        if (!last) limit ??= walkCeiling(page, totalPages, totalCount, ids.length);
        // The next pages are asked for before the caller handles this one (writing it, say), and
        // only those this page announces and the ceiling allows.
        if (!last && limit !== null) {
          const until = Math.min(page + ahead, totalPages, limit);
          for (let next = page + 1; next <= until; next++) {
            if (!pending.has(next)) pending.set(next, request(next));
          }
        }
        yield { ...result, page };
        if (last) return;
        if (limit !== null && page >= limit) {
          throw walkError(page, `it still announced more pages after ${page}`);
        }
        page += 1;
      }
    } finally {
      if (pending.size > 0) cancel.abort();
    }
  }

  function walkError(page: number, why: string): ApiError {
    return new ApiError({
      kind: 'invalid-response',
      status: 200,
      title: "The test list's pages never end",
      detail: `Splitbook stopped reading the test list at page ${page}: ${why}.`,
      retryable: false,
      method: 'GET',
      path: `${PREFIX}/tests`,
      host,
    });
  }

  return {
    listTests,
    walkTests,

    async getTest(id, opts) {
      const request: ApiRequest = { method: 'GET', path: `${PREFIX}/tests/${uuid(id)}` };
      return expect(request, await call(request, opts), Test);
    },

    async updateTest(id, body, opts) {
      const request: ApiRequest = {
        method: 'PATCH',
        path: `${PREFIX}/tests/${uuid(id)}`,
        body: input(UpdateTestBody, body, 'The change to the test is not valid'),
      };
      await call(request, opts);
    },

    async getResults(id, opts) {
      const request: ApiRequest = {
        method: 'GET',
        path: `${PREFIX}/tests/${uuid(id)}/results`,
        maxBytes: resultsMaxBytes,
      };
      return expect(request, await call(request, opts), TestResults);
    },

    async getResultsWith<T>(
      id: string,
      decode: (text: string) => Promise<Decoded<T>>,
      opts?: CallOptions,
    ): Promise<T> {
      // The last body decoded is the answer's: an unreadable one was asked for again.
      const read: { last: Decoded<T> | null } = { last: null };
      const request: ApiRequest = {
        method: 'GET',
        path: `${PREFIX}/tests/${uuid(id)}/results`,
        maxBytes: resultsMaxBytes,
        decode: async (text) => {
          const decoded = await decode(text);
          read.last = decoded;
          return decoded.kind === 'unreadable'
            ? { kind: 'unreadable', reason: decoded.reason }
            : { kind: 'json', value: null };
        },
      };
      const reply = await call(request, opts);
      const { last } = read;
      if (last?.kind === 'ok') return last.value;
      throw invalidResponse(
        request,
        reply.status,
        last?.kind === 'invalid' ? last.detail : NO_READABLE_BODY,
      );
    },

    async createCustomAudience(body, opts) {
      const request: ApiRequest = {
        method: 'POST',
        path: `${PREFIX}/custom-audiences`,
        body: input(CreateCustomAudienceBody, body, 'The custom audience is not valid'),
      };
      return optional(await call(request, opts), CustomAudience);
    },

    async listCustomAudiences(opts) {
      const request: ApiRequest = { method: 'GET', path: `${PREFIX}/custom-audiences` };
      const envelope = expect(request, await call(request, opts), CustomAudienceListResponse);
      return parseRecords(CustomAudience, envelope.customAudiences);
    },

    async updateCampaign(id, body, opts) {
      const request: ApiRequest = {
        method: 'PATCH',
        path: `${PREFIX}/campaigns/${uuid(id)}`,
        body: input(UpdateCampaignBody, body, 'The change to the campaign is not valid'),
      };
      return optional(await call(request, opts), Campaign);
    },

    async listActiveCampaigns(opts) {
      const request: ApiRequest = { method: 'GET', path: `${PREFIX}/campaigns/active` };
      const envelope = expect(request, await call(request, opts), ActiveCampaignsResponse);
      return parseRecords(Campaign, envelope.campaigns);
    },

    async createTag(body, opts) {
      const request: ApiRequest = {
        method: 'POST',
        path: `${PREFIX}/tags`,
        body: input(CreateTagBody, body, 'The tag is not valid'),
      };
      const created = expect(request, await call(request, opts), CreatedTagResponse);
      return { id: created.id };
    },
  };
}

/** Input is checked before anything is sent: a bad id or body is the caller's mistake, told as a validation problem. */
function input<S extends z.ZodType>(schema: S, value: unknown, title: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw problem('validation', 400, title, summarizeIssues(parsed.error.issues));
  return parsed.data;
}

function uuid(id: string): string {
  return encodeURIComponent(input(Uuid, id, 'Not a valid id'));
}

function positive(value: number, name: string): number {
  if (!(value > 0)) throw new RangeError(`${name} must be positive`);
  return value;
}
