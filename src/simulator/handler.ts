// The request pipeline: injected faults and latency, bearer auth, read-only keys, the rate limit,
// routing, and the stats and log hook that see every request (never its key).
import type { Test } from '#shared/api/index';
import {
  SimulatedConnectionReset,
  malformBody,
  truncateBody,
  type FaultInjector,
  type FaultKind,
} from './faults';
import type { RateLimiter } from './limiter';
import type { RequestLogEntry, RequestStats } from './request-stats';
import { problem } from './responses';
import { matchRoute, type RouteContext } from './routes';
import type { StoreState } from './store-state';

export type Handler = (request: Request) => Promise<Response>;

/** What an API key opens: one store, read-write or read-only. */
export type KeyGrant = { store: StoreState; readOnly: boolean };

export type HandlerDeps = {
  grantOf(apiKey: string): KeyGrant | undefined;
  faults: FaultInjector;
  limiter(): RateLimiter;
  stats: RequestStats;
  /** The injected clock: rate limit and request-rate stats. */
  clockNow(): number;
  /** The simulated time (clock plus advanced days): what the data sees. */
  simulatedNow(): number;
  present(store: StoreState, test: Test): unknown;
  onRequest?: (entry: RequestLogEntry) => void;
  /** Whether the answer to this write is lost after the store applied it ('reset' drops it, 'hang' never sends it). */
  loseAnswer?: (method: string) => 'reset' | 'hang' | null;
};

const WWW_AUTHENTICATE = { 'www-authenticate': 'Bearer realm="store-api"' };

function bearerKey(request: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1] ?? null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function createHandler(deps: HandlerDeps): Handler {
  /** Auth, rate limit and routing: the API's own answer, before any response fault. */
  async function respond(
    request: Request,
    url: URL,
    method: string,
    match: ReturnType<typeof matchRoute>,
  ): Promise<Response> {
    if (!url.pathname.startsWith('/api/public/v1/'))
      return problem(404, 'not-found', 'Not found', `No such path: ${url.pathname}`);
    const key = bearerKey(request);
    if (key === null) {
      return problem(
        401,
        'unauthorized',
        'Unauthorized',
        'Send the API key as "Authorization: Bearer <API_KEY>"',
        { headers: WWW_AUTHENTICATE },
      );
    }
    const grant = deps.grantOf(key);
    if (grant === undefined)
      return problem(401, 'unauthorized', 'Unauthorized', 'Unknown API key', {
        headers: WWW_AUTHENTICATE,
      });
    const admission = deps.limiter().take(key, deps.clockNow());
    if (!admission.allowed) {
      return problem(
        429,
        'rate-limited',
        'Too many requests',
        `Rate limit reached; retry in ${admission.retryAfterSeconds} s`,
        {
          headers: { 'retry-after': String(admission.retryAfterSeconds) },
        },
      );
    }
    if (match === null)
      return problem(404, 'not-found', 'Not found', `No such path: ${url.pathname}`);
    const endpoint = match.route.methods[method];
    if (endpoint === undefined) {
      const allowed = Object.keys(match.route.methods).join(', ');
      return problem(
        405,
        'method-not-allowed',
        'Method not allowed',
        `${method} is not allowed here; use ${allowed}`,
        { headers: { allow: allowed } },
      );
    }
    if (grant.readOnly && method !== 'GET')
      return problem(403, 'forbidden', 'Forbidden', 'This API key is read-only');
    const { store } = grant;
    const context: RouteContext = {
      request,
      url,
      id: match.id,
      store,
      now: deps.simulatedNow(),
      present: (test) => deps.present(store, test),
    };
    return endpoint(context);
  }

  return async function handler(request: Request): Promise<Response> {
    const started = performance.now();
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const match = matchRoute(url.pathname);
    const route = `${method} ${match?.route.pattern ?? '(unmatched)'}`;
    const fault: FaultKind | null = deps.faults.draw();

    const finish = (status: number) => {
      deps.stats.record({ route, status, fault, at: deps.clockNow() });
      deps.onRequest?.({
        method,
        path: url.pathname + url.search,
        status,
        ms: performance.now() - started,
      });
    };

    const latency = deps.faults.latencyMs();
    if (latency > 0) await sleep(latency);
    if (fault === 'reset') {
      finish(0);
      throw new SimulatedConnectionReset();
    }

    let response: Response;
    if (fault === 'error') {
      response = problem(
        503,
        'unavailable',
        'Service unavailable',
        'The service is temporarily unavailable (simulated)',
      );
    } else {
      try {
        response = await respond(request, url, method, match);
      } catch (error) {
        // A bug in the simulator, never a request the API would refuse: say so instead of crashing.
        const detail = error instanceof Error ? error.message : String(error);
        response = problem(500, 'internal', 'Internal error', `The simulator failed: ${detail}`);
      }
    }
    const lost = method === 'GET' ? null : (deps.loseAnswer?.(method) ?? null);
    if (lost !== null) {
      // The store applied the write; its answer never reaches the client.
      finish(0);
      if (lost === 'hang') await new Promise<never>(() => undefined);
      throw new SimulatedConnectionReset();
    }
    if (fault === 'truncate') response = await truncateBody(response);
    if (fault === 'malformed') response = await malformBody(response);
    finish(response.status);
    return response;
  };
}
