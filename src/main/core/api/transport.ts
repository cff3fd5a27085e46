// One API request with its retries: limiter slot, per-attempt timeout, body read, and the retry rules.
import { backoffDelay, parseRetryAfter } from './backoff';
import { ApiError, scrubSecret, titleForStatus, type ApiErrorKind } from './errors';
import type { Permit, RequestLimiter } from './limiter';
import {
  SPLITTABLE_UNREADABLE_ATTEMPTS,
  UNFIT_HEAD_BYTES,
  type ApiReply,
  type ApiRequest,
  type ReplyBody,
  type RequestEvent,
} from './request';
import {
  describe,
  errorCode,
  megabytes,
  NETWORK_REASONS,
  NOT_SENT_CODES,
  problemDetails,
  readBody,
  readCapped,
  roughSeconds,
  seconds,
} from './wire';

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

/** Attempts at a host that could not be connected to before the request fails as offline. */
export const MAX_UNREACHABLE_ATTEMPTS = 3;

export type Transport = (request: ApiRequest, signal?: AbortSignal) => Promise<ApiReply>;

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
