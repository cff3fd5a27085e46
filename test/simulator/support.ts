// Shared set-up of the simulator tests: a simulator on a fixed clock served on loopback, and request helpers.
import { expect } from 'vitest';
import { ProblemDetails } from '#shared/api/index';
import {
  API_PREFIX,
  createSimulator,
  serveSimulator,
  type Simulator,
  type SimulatorOptions,
} from '#simulator/index';

/** Every simulator in these tests sees this moment, unless a test moves its own clock. */
export const NOW = Date.parse('2026-06-15T12:00:00Z');

export type Served = {
  sim: Simulator;
  url: string;
  /** fetch of an API path (e.g. '/tests'), relative to the API prefix. */
  api(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
};

export async function serve(options: SimulatorOptions = {}): Promise<Served> {
  const sim = createSimulator({ now: () => NOW, ...options });
  const server = await serveSimulator(sim);
  return {
    sim,
    url: server.url,
    api: (path, init) => fetch(`${server.url}${API_PREFIX}${path}`, init),
    close: server.close,
  };
}

/** The key of a store, read-write unless asked otherwise. */
export function keyOf(sim: Simulator, storeName: string, readOnly = false): string {
  const key = sim.stores.find((entry) => entry.name === storeName && entry.readOnly === readOnly);
  if (key === undefined)
    throw new Error(`No ${readOnly ? 'read-only' : 'read-write'} key for ${storeName}`);
  return key.apiKey;
}

export function bearer(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}

/** Request options for a JSON body sent with a key. */
export function jsonBody(apiKey: string, method: string, body: unknown): RequestInit {
  return {
    method,
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/** Asserts a problem+json response with this status and returns its body. */
export async function expectProblem(
  response: Response,
  status: number,
): Promise<ProblemDetails & Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const body: unknown = await response.json();
  const problem = ProblemDetails.parse(body);
  expect(problem.status).toBe(status);
  expect(typeof problem.type).toBe('string');
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  return problem;
}

/** Asserts a 200-ish JSON response and returns its body. */
export async function expectJson(response: Response, status = 200): Promise<unknown> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  return response.json();
}
