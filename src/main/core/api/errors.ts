// The API client's one error type, and how each kind of failure reads as problem details for the UI.
import { appProblem, type Problem, type ProblemKind } from '#shared/problem';

export const API_ERROR_KINDS = [
  'http',
  'rate-limited',
  'network',
  'timeout',
  'invalid-response',
  'aborted',
  'unauthorized',
  'too-large',
] as const;
export type ApiErrorKind = (typeof API_ERROR_KINDS)[number];

export interface ApiErrorInit {
  kind: ApiErrorKind;
  /** The HTTP status of the last answer, or null when none came. */
  status: number | null;
  title: string;
  detail: string;
  /** Whether trying the same request later may succeed. */
  retryable: boolean;
  method: string;
  /** Path and query below the base URL: never the key, never a full URL. */
  path: string;
  /** host[:port] of the store's API, to tell the user which store is unreachable. */
  host: string;
  /** How long the server asked us to wait, for rate-limited errors. */
  retryAfterMs?: number | null;
  /** The `type` of the server's problem details, when it sent one. */
  problemType?: string | null;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly status: number | null;
  readonly title: string;
  readonly detail: string;
  readonly retryable: boolean;
  readonly method: string;
  readonly path: string;
  readonly host: string;
  readonly retryAfterMs: number | null;
  readonly problemType: string | null;

  constructor(init: ApiErrorInit) {
    super(`${init.method} ${init.path}: ${init.title}. ${init.detail}`);
    this.kind = init.kind;
    this.status = init.status;
    this.title = init.title;
    this.detail = init.detail;
    this.retryable = init.retryable;
    this.method = init.method;
    this.path = init.path;
    this.host = init.host;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.problemType = init.problemType ?? null;
  }

  /** What the user sees: a problem type the UI can act on, in words about the store, not about HTTP. */
  toProblem(): Problem {
    switch (this.kind) {
      case 'network':
      case 'timeout':
        return appProblem('offline', 503, "Cannot reach the store's API", this.detail);
      case 'unauthorized':
        return appProblem(
          'unauthorized',
          401,
          'The API key was refused',
          `${this.host} did not accept the API key. Check the key on the store's API Keys settings page.`,
        );
      case 'invalid-response':
        return appProblem(
          'api',
          this.status ?? 502,
          'The API sent a response Splitbook cannot read',
          this.detail,
        );
      case 'rate-limited':
        return appProblem('api', 429, "The store's API asks Splitbook to slow down", this.detail);
      case 'aborted':
        // 499: nginx's "client closed request", the nearest thing HTTP has to "cancelled".
        return appProblem('api', 499, 'The request was cancelled', this.detail);
      case 'too-large':
        return appProblem('tooLarge', 502, "The store's answer was too large", this.detail);
      case 'http':
        return appProblem(problemTypeOf(this.status), this.status ?? 502, this.title, this.detail);
    }
  }

  /** Plain fields for logs and JSON; the same ones the message is built from, so nothing secret. */
  toJSON(): ApiErrorInit & { name: string; message: string } {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      status: this.status,
      title: this.title,
      detail: this.detail,
      retryable: this.retryable,
      method: this.method,
      path: this.path,
      host: this.host,
      retryAfterMs: this.retryAfterMs,
      problemType: this.problemType,
    };
  }
}

function problemTypeOf(status: number | null): ProblemKind {
  switch (status) {
    case 400:
    case 422:
      return 'validation';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'notFound';
    case 409:
      return 'conflict';
    default:
      return 'api';
  }
}

/** Default titles for statuses whose answer carried no problem details of its own. */
export function titleForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'The store refused the request';
    case 401:
      return 'The API key was refused';
    case 403:
      return 'The store does not allow this';
    case 404:
      return 'Not found in the store';
    case 409:
      return 'This conflicts with the store’s data';
    case 422:
      return 'The store cannot make this change';
    case 429:
      return 'Too many requests';
    default:
      return status >= 500 ? "The store's API failed" : `The store's API answered ${status}`;
  }
}

const REDACTED = '[redacted]';

/**
 * Removes a secret from text that may have come from anywhere (a server echoing the key,
 * an HTTP library quoting a header). Very short secrets are left alone: replacing every "a"
 * would make messages unreadable and such a key is not a real one.
 */
export function scrubSecret(text: string, secret: string): string {
  if (secret.length < 4) return text;
  let out = text;
  for (const form of new Set([secret, encodeURIComponent(secret)]))
    out = out.split(form).join(REDACTED);
  return out;
}
