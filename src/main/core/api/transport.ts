// One API request with its retries: limiter slot, per-attempt timeout, body read, and the retry rules.
import { ProblemDetails } from '#shared/api/index';
import { backoffDelay, parseRetryAfter } from './backoff';
import { ApiError, scrubSecret, titleForStatus, type ApiErrorKind } from './errors';
import type { Permit, RequestLimiter } from './limiter';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface ApiRequest {
  method: HttpMethod;
  /** Path and query below the base URL, starting with `/api/public/v1`. */
  path: string;
  body?: unknown;
  /** The most bytes of the answer's body read before the call fails as too large; default: the transport's. */
  maxBytes?: number;
  /**
   * A listing page the caller can ask for again in smaller pages: a 2xx answer too large, or not
   * JSON at its second attempt, comes back as an `unfit` body (the error it would have failed with,
   * and its first bytes) instead of failing, so the caller can find the one record at fault.
   */
  splittable?: boolean;
  /**
   * Reads a GET's 2xx body instead of the transport's JSON.parse, possibly on another thread (the
   * sync's results decoder). Its `unreadable` is treated as the transport's own: the GET is asked
   * again, as a broken transfer. Everything else it returns is the reply's body as it is.
   */
  decode?: (text: string) => Promise<ReplyBody>;
}

/** A successful answer's body. GETs always get `json`; a write may get none or an unreadable one. */
export type ReplyBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'none' }
  | { kind: 'unreadable'; reason: string }
  | UnfitBody;

/** A splittable request's 2xx answer that could not be taken whole (too large, or not JSON). */
export interface UnfitBody {
  kind: 'unfit';
  /** What the request would have failed with, had it not been splittable. */
  error: ApiError;
  /** Why, in a few words: "more than 8 MB", "not valid JSON (…)". */
  reason: string;
  /** The body's first bytes (at most UNFIT_HEAD_BYTES), as text: enough to find a record's id. */
  head: string;
}

/** How much of an unfit answer is kept: a record's id comes near its start. */
export const UNFIT_HEAD_BYTES = 64 * 1024;
/** A splittable answer that is not JSON is asked for once more (a broken transfer), then returned unfit. */
export const SPLITTABLE_UNREADABLE_ATTEMPTS = 2;

export interface ApiReply {
  status: number;
  body: ReplyBody;
}

export interface RequestEvent {
  method: string;
  path: string;
  /** Null when no answer came (network failure, timeout, abort). */
  status: number | null;
  attempt: number;
  ms: number;
}

export interface TransportConfig {
  /** Without a trailing slash. */
  baseUrl: string;
  host: string;
  apiKey: string;
  fetch: typeof fetch;
  limiter: RequestLimiter;
  timeoutMs: number;
  /** The body cap of a request that names none of its own. */
  maxBodyBytes: number;
  maxAttempts: number;
  maxBackoffMs: number;
  maxRetryAfterMs: number;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  onRequest?: (event: RequestEvent) => void;
}

export type Transport = (request: ApiRequest, signal?: AbortSignal) => Promise<ApiReply>;

/** Failures that happen before a connection exists: the request surely never reached the server. */
/** Attempts at a host that could not be connected to before the request fails as offline. */
export const MAX_UNREACHABLE_ATTEMPTS = 3;

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name is unknown',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EADDRNOTAVAIL: 'the address is not available',
  UND_ERR_CONNECT_TIMEOUT: 'the connection could not be opened in time',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection closed before the answer was complete',
  ETIMEDOUT: 'the connection timed out',
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate cannot be verified",
};

/** What one attempt came to: an answer to return, a failure worth another attempt, or the end. */
type AttemptOutcome =
  | { type: 'done'; reply: ApiReply }
  | { type: 'retry'; error: ApiError; waitMs: number; unreachable?: boolean }
  | { type: 'fail'; error: ApiError };

/** The rules' verdict, which for a GET that decodes its own body (ApiRequest.decode) waits on the decode. */
type Verdict =
  | AttemptOutcome
  | { type: 'decode'; status: number; text: string; decode: (text: string) => Promise<ReplyBody> };

/** What came back on the wire, before any rule is applied. */
type Exchange =
  | { type: 'answer'; status: number; statusText: string; headers: Headers; text: string }
  | { type: 'too-large'; status: number; limit: number; head: string }
  | {
      type: 'no-answer';
      status: number | null;
      cause: 'aborted' | 'timeout' | 'network';
      code: string | null;
      reason: string;
    };

export function createTransport(config: TransportConfig): Transport {
  const clean = (text: string) => scrubSecret(text, config.apiKey);

  function makeError(
    request: ApiRequest,
    kind: ApiErrorKind,
    status: number | null,
    title: string,
    detail: string,
    retryable: boolean,
    extra: { retryAfterMs?: number | null; problemType?: string | null } = {},
  ): ApiError {
    return new ApiError({
      kind,
      status,
      title: clean(title),
      detail: clean(detail),
      retryable,
      method: request.method,
      path: clean(request.path),
      host: clean(config.host),
      retryAfterMs: extra.retryAfterMs ?? null,
      problemType:
        extra.problemType === undefined || extra.problemType === null
          ? null
          : clean(extra.problemType),
    });
  }

  function aborted(request: ApiRequest): ApiError {
    return makeError(
      request,
      'aborted',
      null,
      'Cancelled',
      'The request was cancelled before it finished.',
      false,
    );
  }

  async function exchange(request: ApiRequest, signal: AbortSignal | undefined): Promise<Exchange> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), config.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    let status: number | null = null;
    try {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${config.apiKey}`,
        Accept: 'application/json, application/problem+json',
      };
      if (request.body !== undefined) headers['Content-Type'] = 'application/json';
      const response = await config.fetch(`${config.baseUrl}${request.path}`, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: combined,
        // A redirect is reported, not followed: the key must only ever go to the address the user gave.
        redirect: 'manual',
      });
      status = response.status;
      // The whole body is read inside the attempt and its timeout: a truncated body fails this attempt.
      // It is read as a stream up to a cap, so no server can make the process hold more than that.
      const limit = request.maxBytes ?? config.maxBodyBytes;
      const read = await readCapped(response, limit, request.splittable ? UNFIT_HEAD_BYTES : 0);
      if (read.type === 'too-large') return { type: 'too-large', status, limit, head: read.head };
      return {
        type: 'answer',
        status,
        statusText: response.statusText,
        headers: response.headers,
        text: read.text,
      };
    } catch (error) {
      if (signal?.aborted)
        return { type: 'no-answer', status, cause: 'aborted', code: null, reason: 'cancelled' };
      if (timeout.signal.aborted)
        return { type: 'no-answer', status, cause: 'timeout', code: null, reason: 'timeout' };
      const code = errorCode(error);
      const reason = (code && NETWORK_REASONS[code]) ?? describe(error);
      return { type: 'no-answer', status, cause: 'network', code, reason };
    } finally {
      clearTimeout(timer);
    }
  }

  function unfit(status: number, error: ApiError, reason: string, text: string): AttemptOutcome {
    const head = clean(text.slice(0, UNFIT_HEAD_BYTES));
    return { type: 'done', reply: { status, body: { kind: 'unfit', error, reason, head } } };
  }

  /** A 2xx answer's body as read (by readBody, or the request's own decode): the reply, or another try. */
  function readOutcome(
    request: ApiRequest,
    attempt: number,
    status: number,
    body: ReplyBody,
    text: string,
  ): AttemptOutcome {
    if (body.kind !== 'none' && body.kind !== 'unreadable')
      return { type: 'done', reply: { status, body } };
    if (request.method !== 'GET') return { type: 'done', reply: { status, body } };
    const reason = body.kind === 'none' ? 'the body was empty' : body.reason;
    const error = makeError(
      request,
      'invalid-response',
      status,
      'Unreadable response',
      `The answer from ${config.host} is not valid JSON: ${reason}.`,
      true,
    );
    // A splittable page asked twice is read again in smaller pages (a record may break every answer).
    if (request.splittable && attempt >= SPLITTABLE_UNREADABLE_ATTEMPTS) {
      return unfit(status, error, clean(`not valid JSON (${reason})`), text);
    }
    // Malformed bodies are usually a broken transfer; a GET may simply be asked again.
    return {
      type: 'retry',
      error,
      waitMs: backoffDelay(attempt - 1, config.maxBackoffMs, config.random),
    };
  }

  /** The retry rules, applied to one exchange. */
  function judge(request: ApiRequest, attempt: number, result: Exchange, permit: Permit): Verdict {
    const idempotent = request.method === 'GET';
    const backoff = () => backoffDelay(attempt - 1, config.maxBackoffMs, config.random);

    if (result.type === 'no-answer') {
      // An answer whose body broke off still cost the server a request.
      if (result.status === null) permit.failed();
      else permit.answered();
      if (result.cause === 'aborted') return { type: 'fail', error: aborted(request) };
      // A write answered 2xx was applied even if its body broke off: report the success, not a failure to retry by hand.
      if (!idempotent && result.status !== null && result.status >= 200 && result.status < 300) {
        return {
          type: 'done',
          reply: { status: result.status, body: { kind: 'unreadable', reason: result.reason } },
        };
      }
      if (result.cause === 'timeout') {
        const error = makeError(
          request,
          'timeout',
          result.status,
          'Timed out',
          `${config.host} did not answer within ${seconds(config.timeoutMs)}.`,
          idempotent,
        );
        // A write that timed out may have been applied: sending it again could apply it twice.
        return idempotent ? { type: 'retry', error, waitMs: backoff() } : { type: 'fail', error };
      }
      const notSent =
        result.status === null && result.code !== null && NOT_SENT_CODES.has(result.code);
      const safe = idempotent || notSent;
      const error = makeError(
        request,
        'network',
        result.status,
        'Network error',
        `No complete answer from ${config.host}: ${result.reason}.`,
        safe,
      );
      return safe
        ? { type: 'retry', error, waitMs: backoff(), unreachable: notSent }
        : { type: 'fail', error };
    }

    if (result.type === 'too-large') {
      permit.answered();
      const error = makeError(
        request,
        'too-large',
        result.status,
        "The store's answer was too large",
        `${config.host} sent more than ${megabytes(result.limit)} in one answer; Splitbook stops reading there so that its memory stays bounded.`,
        false,
      );
      // A listing page can be read again in smaller pages, to find the record that makes it so large.
      if (request.splittable && result.status >= 200 && result.status < 300) {
        const reason = `more than ${megabytes(result.limit)}`;
        return unfit(result.status, error, reason, result.head);
      }
      // The same request would bring the same flood: asking again only costs more.
      return { type: 'fail', error };
    }

    const { status, headers, text } = result;
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(headers.get('retry-after'), config.now());
      const pauseMs = retryAfterMs ?? backoff();
      permit.throttled(pauseMs);
      const details = problemDetails(text);
      const error = makeError(
        request,
        'rate-limited',
        429,
        details.title ?? titleForStatus(429),
        details.detail ??
          `${config.host} asks to wait ${seconds(pauseMs)} before the next request.`,
        true,
        { retryAfterMs: pauseMs, problemType: details.type },
      );
      // The limiter holds every request of the store until the pause ends: no wait of our own.
      return pauseMs > config.maxRetryAfterMs
        ? { type: 'fail', error }
        : { type: 'retry', error, waitMs: 0 };
    }
    permit.answered();

    if (status >= 200 && status < 300) {
      if (request.decode && idempotent && text.trim() !== '')
        return { type: 'decode', status, text, decode: request.decode };
      return readOutcome(request, attempt, status, readBody(status, text), text);
    }

    if (status >= 300 && status < 400) {
      const error = makeError(
        request,
        'http',
        status,
        "The store's API redirected the request",
        `${config.host} answered ${status} and pointed elsewhere. Check the store's API address.`,
        false,
      );
      return { type: 'fail', error };
    }

    const details = problemDetails(text);
    const kind: ApiErrorKind = status === 401 ? 'unauthorized' : 'http';
    const serverError = status >= 500;
    const fallbackDetail = `${config.host} answered ${status}${result.statusText ? ` ${result.statusText}` : ''}.`;
    const error = makeError(
      request,
      kind,
      status,
      details.title ?? titleForStatus(status),
      details.detail ?? fallbackDetail,
      serverError && idempotent,
      { problemType: details.type },
    );
    // A server error on a write may have been applied before it failed: only GETs are asked again.
    if (!serverError || !idempotent) return { type: 'fail', error };
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), config.now());
    const waitMs = Math.min(retryAfterMs ?? backoff(), config.maxRetryAfterMs);
    return { type: 'retry', error, waitMs };
  }

  async function attemptOnce(
    request: ApiRequest,
    attempt: number,
    signal?: AbortSignal,
  ): Promise<AttemptOutcome> {
    const pausedMs = config.limiter.pauseRemainingMs();
    if (pausedMs > config.maxRetryAfterMs) {
      const error = makeError(
        request,
        'rate-limited',
        null,
        titleForStatus(429),
        `${config.host} asked to wait ${seconds(pausedMs)} before the next request.`,
        true,
        { retryAfterMs: pausedMs },
      );
      return { type: 'fail', error };
    }
    let permit: Permit;
    try {
      permit = await config.limiter.acquire(signal);
    } catch {
      return { type: 'fail', error: aborted(request) };
    }
    const started = config.now();
    const result = await exchange(request, signal);
    try {
      config.onRequest?.({
        method: request.method,
        path: clean(request.path),
        status: result.status,
        attempt,
        ms: config.now() - started,
      });
    } catch {
      // An observer that throws must not fail the request, nor keep its limiter slot.
    }
    const verdict = judge(request, attempt, result, permit);
    if (verdict.type !== 'decode') return verdict;
    // Decoded after the limiter slot is given back: reading a body is not the server's time. A decode
    // that throws is a fault of the reader, not of the answer: the call fails with it, not retried.
    const body = await verdict.decode(verdict.text);
    return readOutcome(request, attempt, verdict.status, body, verdict.text);
  }

  /**
   * A request that timed out more than once says how long it was tried in all, not only one try's limit
   * (a user who waited 21 s reads "did not answer within 10 s, 2 times in 21 s").
   */
  function timedOutInAll(
    request: ApiRequest,
    error: ApiError,
    times: number,
    ms: number,
  ): ApiError {
    if (error.kind !== 'timeout' || times < 2) return error;
    return makeError(
      request,
      'timeout',
      error.status,
      error.title,
      `${config.host} did not answer within ${seconds(config.timeoutMs)}, ${times} times in ${roughSeconds(ms)}.`,
      error.retryable,
    );
  }

  return async function send(request, signal) {
    let unreachable = 0;
    let timeouts = 0;
    const began = config.now();
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw aborted(request);
      const outcome = await attemptOnce(request, attempt, signal);
      if (outcome.type === 'done') return outcome.reply;
      if (outcome.error.kind === 'timeout') timeouts += 1;
      if (outcome.type === 'fail' || attempt >= config.maxAttempts)
        throw timedOutInAll(request, outcome.error, timeouts, config.now() - began);
      // A host that refuses or cannot be found is offline for now: say so within a second, not after every retry.
      if (outcome.unreachable && ++unreachable >= MAX_UNREACHABLE_ATTEMPTS)
        throw timedOutInAll(request, outcome.error, timeouts, config.now() - began);
      if (outcome.waitMs > 0) {
        try {
          await config.sleep(outcome.waitMs, signal);
        } catch {
          throw aborted(request);
        }
      }
    }
  };
}

/**
 * The body as text, or too large once it exceeds `limit` bytes (the rest is not read: the stream is
 * cancelled), with its first `keep` bytes. Of a Content-Length above the limit nothing more is read
 * than those `keep` bytes (none for most requests).
 */
async function readCapped(
  response: Response,
  limit: number,
  keep: number,
): Promise<{ type: 'text'; text: string } | { type: 'too-large'; head: string }> {
  const declared = Number(response.headers.get('content-length'));
  const refused = Number.isFinite(declared) && declared > limit;
  if (!response.body || (refused && keep === 0)) {
    await response.body?.cancel().catch(() => {});
    return refused ? { type: 'too-large', head: '' } : { type: 'text', text: '' };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const tooLarge = async (last: Uint8Array | null) => {
    await reader.cancel().catch(() => {});
    const head: Uint8Array[] = [];
    let kept = 0;
    for (const chunk of last ? [...chunks, last] : chunks) {
      if (kept >= keep) break;
      head.push(chunk.subarray(0, keep - kept));
      kept += Math.min(chunk.byteLength, keep - kept);
    }
    return { type: 'too-large' as const, head: Buffer.concat(head, kept).toString('utf8') };
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > limit) return tooLarge(value);
    total += value.byteLength;
    chunks.push(value);
    if (refused && total >= keep) return tooLarge(null);
  }
  if (refused) return tooLarge(null);
  return { type: 'text', text: Buffer.concat(chunks, total).toString('utf8') };
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1
    ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`
    : `${Math.ceil(bytes / 1024)} KB`;
}

function readBody(status: number, text: string): ReplyBody {
  if (status === 204 || text.trim() === '') return { kind: 'none' };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'unreadable', reason: describe(error) };
  }
}

/** The server's problem details, when its error body carries them; fields may each be missing. */
function problemDetails(text: string): {
  type: string | null;
  title: string | null;
  detail: string | null;
} {
  const none = { type: null, title: null, detail: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return none;
  }
  const parsed = ProblemDetails.safeParse(json);
  if (!parsed.success) return none;
  const nonEmpty = (s: string | null | undefined) => (s && s.trim() !== '' ? s.trim() : null);
  return {
    type: nonEmpty(parsed.data.type),
    title: nonEmpty(parsed.data.title),
    detail: nonEmpty(parsed.data.detail),
  };
}

/** The system error code of a fetch failure, wherever undici put it (the error, its cause, an AggregateError). */
function errorCode(error: unknown): string | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if ('code' in current && typeof current.code === 'string') return current.code;
    if ('cause' in current) queue.push(current.cause);
    if (current instanceof AggregateError) queue.push(...current.errors);
  }
  return null;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : null;
    return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
  }
  return String(error);
}

/** Whole seconds from ten on ("21 s"), tenths below ("2.4 s"). */
function roughSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
