// Responses of the simulated API: JSON data, empty successes and RFC 9457 problem details.
// Data is `application/json`, every error `application/problem+json` with type, title, status, detail.
import { problemDetails } from '#shared/problem';

/** Problem `type` URIs are this base plus a slug (the spec leaves the values open). */
export const PROBLEM_TYPE_BASE = 'https://store-api.invalid/problems/';

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204 });
}

export type ProblemOptions = {
  /** Extension members, e.g. `field` on a locked-field problem. */
  members?: Record<string, unknown>;
  headers?: Record<string, string>;
};

export function problem(
  status: number,
  slug: string,
  title: string,
  detail: string,
  options: ProblemOptions = {},
): Response {
  const body = {
    ...problemDetails(PROBLEM_TYPE_BASE + slug, status, title, detail),
    ...options.members,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/problem+json', ...options.headers },
  });
}

export const badRequest = (detail: string, members?: Record<string, unknown>) =>
  problem(400, 'invalid-request', 'Invalid request', detail, { members });

export const notFound = (detail: string) => problem(404, 'not-found', 'Not found', detail);

export const conflict = (detail: string) =>
  problem(409, 'duplicate-name', 'Duplicate name', detail);
