// The stale-answer guard, once (issue 45, item 6): an answer overtaken by a later ask is dropped, the last
// one's answer or problem is handed on and settles, and `settled` waits for asks begun meanwhile.
import { describe, expect, test, vi } from 'vitest';

// lib/api.ts (toProblem) builds its proxy over the page's bridge when imported; never called here.
vi.hoisted(() => vi.stubGlobal('window', { splitbook: { on: () => () => undefined } }));

import { LatestAnswer } from '../../src/renderer/src/lib/latestAnswer';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

function recorder() {
  const seen: string[] = [];
  return {
    seen,
    on: {
      answer: (data: string) => seen.push(`answer ${data}`),
      problem: (problem: { title: string; detail?: string }) =>
        seen.push(`problem ${problem.detail ?? problem.title}`),
      settled: () => seen.push('settled'),
    },
  };
}

describe('LatestAnswer', () => {
  test('an answer that comes after a later ask is dropped, whatever the order they come in', async () => {
    const latest = new LatestAnswer();
    const { seen, on } = recorder();
    const first = deferred<string>();
    const second = deferred<string>();
    const a = latest.ask(() => first.promise, on);
    const b = latest.ask(() => second.promise, on);
    second.resolve('new');
    await b;
    first.resolve('old');
    await a;
    expect(seen).toEqual(['answer new', 'settled']);
  });

  test("the last ask's error is its problem; an overtaken error is dropped", async () => {
    const latest = new LatestAnswer();
    const { seen, on } = recorder();
    const first = deferred<string>();
    const a = latest.ask(() => first.promise, on);
    const b = latest.ask(() => Promise.reject(new Error('refused')), on);
    await b;
    first.reject(new Error('too late'));
    await a;
    expect(seen).toEqual(['problem refused', 'settled']);
  });

  test('settled waits for the last ask, and for one begun while it ran', async () => {
    const latest = new LatestAnswer();
    const { seen, on } = recorder();
    const first = deferred<string>();
    const second = deferred<string>();
    void latest.ask(() => first.promise, on);
    let done = false;
    const waiting = latest.settled().then(() => (done = true));
    void latest.ask(() => second.promise, on);
    first.resolve('old');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(done).toBe(false);
    second.resolve('new');
    await waiting;
    expect(seen).toEqual(['answer new', 'settled']);
    await expect(new LatestAnswer().settled()).resolves.toBeUndefined();
  });

  test('a fetch is called at once and told whether it is still the last ask', async () => {
    const latest = new LatestAnswer();
    const { on } = recorder();
    let called = false;
    let stillMine: () => boolean = () => false;
    const first = deferred<string>();
    const a = latest.ask((current) => {
      called = true;
      stillMine = current;
      return first.promise;
    }, on);
    expect(called).toBe(true);
    expect(stillMine()).toBe(true);
    void latest.ask(() => Promise.resolve('new'), on);
    expect(stillMine()).toBe(false);
    first.resolve('old');
    await a;
  });

  test('current: work following on from the last ask counts until another ask begins', async () => {
    const latest = new LatestAnswer();
    const { on } = recorder();
    await latest.ask(() => Promise.resolve('page 1'), on);
    const nextPage = latest.current();
    expect(nextPage()).toBe(true);
    expect(latest.current()()).toBe(true);
    await latest.ask(() => Promise.resolve('new query'), on);
    expect(nextPage()).toBe(false);
  });
});
