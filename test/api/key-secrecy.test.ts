// The API key goes in the Authorization header and nowhere else: no error, message, stack, problem or event holds it.
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiError, type RequestEvent } from '#core/api/index';
import { failure } from './support/failure';
import {
  freePort,
  sendJson,
  startScriptedServer,
  type ScriptedServer,
} from './support/scripted-server';
import { API_KEY, STORE, serveSim, type ServedSim } from './support/simulator';

let served: ServedSim;
let echo: ScriptedServer;
const events: RequestEvent[] = [];

beforeAll(async () => {
  served = await serveSim();
  // A careless server that repeats the Authorization header it got, in every place it can.
  echo = await startScriptedServer((req, res) => {
    const key = (req.authorization ?? '').replace(/^Bearer /, '');
    if (req.url.includes('/tags')) {
      sendJson(
        res,
        400,
        {
          type: key,
          title: `Bad key ${key}`,
          status: 400,
          detail: `You sent ${req.authorization}`,
        },
        { 'content-type': 'application/problem+json' },
      );
    } else if (req.url.includes('/custom-audiences')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"customAudiences": ${key}`);
    } else {
      sendJson(res, 200, { data: key, pagination: { page: key } });
    }
  });
});
afterAll(async () => {
  await served.close();
  await echo.close();
});

function everyFormOf(error: ApiError): string[] {
  return [
    String(error),
    error.message,
    error.stack ?? '',
    JSON.stringify(error),
    JSON.stringify(error.toProblem()),
    inspect(error, { depth: 10, showHidden: true }),
  ];
}

describe('the API key', () => {
  it('appears in no error of any kind, however it is printed', async () => {
    const client = served.client({ onRequest: (e) => events.push(e), maxAttempts: 2 });
    const impatient = served.client({
      onRequest: (e) => events.push(e),
      maxAttempts: 2,
      timeoutMs: 50,
    });
    const { sim } = served;
    const testId = sim.snapshot(STORE).tests[0]?.id ?? '';
    const errors: ApiError[] = [];

    errors.push(await failure(client.getTest('00000000-0000-4000-8000-000000000000'))); // http 404
    sim.failNext('reset', 2);
    errors.push(await failure(client.getTest(testId))); // network
    sim.failNext('truncate', 2);
    errors.push(await failure(client.getTest(testId))); // network, body cut
    sim.failNext('malformed', 2);
    errors.push(await failure(client.getTest(testId))); // invalid-response
    sim.failNext('error', 2);
    errors.push(await failure(client.getTest(testId))); // http 503
    sim.setFaults({ brokenTests: { ids: [testId] } });
    errors.push(await failure(client.getTest(testId))); // invalid-response, schema
    sim.setFaults({ brokenTests: null, latencyMs: 200 });
    errors.push(await failure(impatient.getTest(testId))); // timeout
    errors.push(await failure(client.getTest(testId, { signal: AbortSignal.timeout(10) }))); // aborted
    sim.setFaults({ latencyMs: 0 });
    sim.setRate({ capacity: 1, refillPerSecond: 0.01 });
    // Whoever takes the bucket's only token (this call, or one of the slow requests above still
    // inside the simulator), the next call is refused for 100 s.
    await served
      .client({ maxAttempts: 1 })
      .listTests()
      .catch(() => undefined);
    errors.push(await failure(served.client({ maxAttempts: 1 }).listTests())); // rate-limited
    sim.setRate(null);

    const wrongKey = 'sk_live_wrong_key_that_must_stay_secret_42';
    const stranger = createApiClient({
      baseUrl: served.url,
      apiKey: wrongKey,
      onRequest: (e) => events.push(e),
    });
    const unauthorized = await failure(stranger.listTests());
    const refused = await failure(
      createApiClient({
        baseUrl: `http://127.0.0.1:${await freePort()}`,
        apiKey: API_KEY,
        maxAttempts: 1,
      }).listTests(),
    );

    const echoing = createApiClient({
      baseUrl: echo.url,
      apiKey: API_KEY,
      maxAttempts: 2,
      maxBackoffMs: 5,
      onRequest: (e) => events.push(e),
    });
    const echoed = [
      await failure(echoing.createTag({ name: 'x' })),
      await failure(echoing.listCustomAudiences()),
      await failure(echoing.listTests()),
    ];

    const kinds = new Set([...errors, unauthorized, refused, ...echoed].map((e) => e.kind));
    expect([...kinds].sort()).toEqual([
      'aborted',
      'http',
      'invalid-response',
      'network',
      'rate-limited',
      'timeout',
      'unauthorized',
    ]);
    for (const error of [...errors, refused, ...echoed]) {
      for (const text of everyFormOf(error)) expect(text).not.toContain(API_KEY);
    }
    for (const text of everyFormOf(unauthorized)) expect(text).not.toContain(wrongKey);
    // The echoing server's words are kept, with the key cut out.
    expect(echoed[0]?.detail).toBe('You sent Bearer [redacted]');

    const log = JSON.stringify(events);
    expect(events.length).toBeGreaterThan(10);
    expect(log).not.toContain(API_KEY);
    expect(log).not.toContain(wrongKey);
  });

  it('is refused before sending when a header could not carry it, without being quoted', () => {
    const key = 'sk_live_with\nnewline_0123456789';
    let thrown: unknown = null;
    try {
      createApiClient({ baseUrl: served.url, apiKey: key });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(inspect(thrown)).not.toContain('sk_live_with');
  });
});
