// Each kind of API failure reads as the problem the UI can act on.
import { describe, expect, it } from 'vitest';
import { ApiError, scrubSecret, type ApiErrorKind } from '#core/api/errors';
import { PROBLEM_TYPES } from '#shared/problem';

function error(
  kind: ApiErrorKind,
  status: number | null,
  title = 'Server title',
  detail = 'Server detail',
): ApiError {
  return new ApiError({
    kind,
    status,
    title,
    detail,
    retryable: false,
    method: 'GET',
    path: '/api/public/v1/tests',
    host: 'shop.example:8443',
  });
}

describe('ApiError.toProblem', () => {
  it('tells an unreachable store as offline, naming the host', () => {
    const network = error(
      'network',
      null,
      'Network error',
      'No complete answer from shop.example:8443: refused.',
    ).toProblem();
    expect(network).toEqual({
      type: PROBLEM_TYPES.offline,
      status: 503,
      title: "Cannot reach the store's API",
      detail: 'No complete answer from shop.example:8443: refused.',
    });
    expect(error('timeout', null).toProblem().type).toBe(PROBLEM_TYPES.offline);
  });

  it('tells a refused key as unauthorized', () => {
    const p = error('unauthorized', 401).toProblem();
    expect(p).toMatchObject({
      type: PROBLEM_TYPES.unauthorized,
      status: 401,
      title: 'The API key was refused',
    });
    expect(p.detail).toContain('shop.example:8443');
  });

  it.each([
    [400, PROBLEM_TYPES.validation],
    [422, PROBLEM_TYPES.validation],
    [403, PROBLEM_TYPES.forbidden],
    [404, PROBLEM_TYPES.notFound],
    [409, PROBLEM_TYPES.conflict],
    [500, PROBLEM_TYPES.api],
    [503, PROBLEM_TYPES.api],
    [418, PROBLEM_TYPES.api],
  ])('maps HTTP %i to %s and keeps the server title and detail', (status, type) => {
    expect(error('http', status).toProblem()).toEqual({
      type,
      status,
      title: 'Server title',
      detail: 'Server detail',
    });
  });

  it('tells an unreadable answer as an API problem with what did not fit', () => {
    expect(
      error('invalid-response', 200, 'Unexpected response', 'data: expected array').toProblem(),
    ).toEqual({
      type: PROBLEM_TYPES.api,
      status: 200,
      title: 'The API sent a response Splitbook cannot read',
      detail: 'data: expected array',
    });
  });

  it('gives rate limiting and cancelling their own words', () => {
    expect(error('rate-limited', 429).toProblem()).toMatchObject({
      type: PROBLEM_TYPES.api,
      status: 429,
    });
    expect(error('aborted', null).toProblem()).toMatchObject({
      status: 499,
      title: 'The request was cancelled',
    });
  });

  it('serialises to its plain fields', () => {
    const json = JSON.parse(JSON.stringify(error('http', 404))) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: 'ApiError',
      kind: 'http',
      status: 404,
      method: 'GET',
      path: '/api/public/v1/tests',
    });
  });
});

describe('scrubSecret', () => {
  it('removes the secret and its URL-encoded form wherever it appears', () => {
    const key = 'sk_live/abc+def';
    const text = `echo ${key} and ${encodeURIComponent(key)} and ${key}`;
    expect(scrubSecret(text, key)).toBe('echo [redacted] and [redacted] and [redacted]');
  });
});
