// The shape of one API request and its answer, as the client asks and the transport replies.
import type { ApiError } from './errors';

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
