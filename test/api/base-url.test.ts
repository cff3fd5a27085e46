// Plain http:// carries the API key in clear: it is accepted only for loopback hosts, by one rule
// (shared/domain/base-url.ts) that the contract and the API client both apply.
import { describe, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { AddStoreInput } from '#shared/contract/index';
import { plainHttpAllowed, PLAIN_HTTP_REFUSED } from '#shared/domain/base-url';
import { ProblemError } from '#shared/problem';

const KEY = 'sk_test_base_url_00000000';

describe('plain http:// is for loopback only', () => {
  it.each(['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'simulator.invalid'])(
    'allows %s',
    (host) => expect(plainHttpAllowed(host)).toBe(true),
  );
  it.each([
    'shop.example.com',
    '10.0.0.5',
    '192.168.1.2',
    'localhost.evil.com',
    '[::2]',
    '0.0.0.0',
  ])('refuses %s', (host) => expect(plainHttpAllowed(host)).toBe(false));

  it('the API client refuses http:// to another host before any request', () => {
    let thrown: unknown = null;
    try {
      createApiClient({
        baseUrl: 'http://shop.example.com',
        apiKey: KEY,
        fetch: () => Promise.reject(new Error('sent')),
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProblemError);
    expect((thrown as ProblemError).problem.detail).toBe(PLAIN_HTTP_REFUSED);
    expect(() => createApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY })).not.toThrow();
    expect(() =>
      createApiClient({ baseUrl: 'https://shop.example.com', apiKey: KEY }),
    ).not.toThrow();
  });

  it('the add-store form refuses it with the same words', () => {
    const input = { name: 'Shop', baseUrl: 'http://shop.example.com', apiKey: KEY };
    const parsed = AddStoreInput.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(PLAIN_HTTP_REFUSED);
    expect(AddStoreInput.safeParse({ ...input, baseUrl: 'https://shop.example.com' }).success).toBe(
      true,
    );
    expect(AddStoreInput.safeParse({ ...input, baseUrl: 'http://localhost:8080' }).success).toBe(
      true,
    );
  });
});
