// A view's data access: loads for its key, reloads on a new version keeping what is shown, drops answers
// for a key left behind, and keeps an error for the view to show (with its Retry).
import { flushSync } from 'svelte';
import { describe, expect, test, vi } from 'vitest';
import { ProblemError, type Problem } from '#shared/problem';

// lib/api.ts builds its proxy over the page's bridge when imported; the loader never calls it.
vi.hoisted(() => vi.stubGlobal('window', { splitbook: { on: () => () => undefined } }));

import { Loader } from '../../src/renderer/src/lib/loader.svelte';

/** A fetch whose answers the test gives by hand, in any order. */
function deferredFetch<K, T>() {
  const calls: { key: K; resolve: (value: T) => void; reject: (error: unknown) => void }[] = [];
  const fetch = (key: K) =>
    new Promise<T>((resolve, reject) => calls.push({ key, resolve, reject }));
  return { fetch, calls };
}

const refused: Problem = {
  type: 'about:blank',
  title: 'Store not found',
  status: 404,
  detail: 'No store has the id B.',
};

describe('Loader', () => {
  test('a new key loads from nothing; a new version reloads keeping the data shown', async () => {
    const { fetch, calls } = deferredFetch<string, string[]>();
    const loader = new Loader(fetch);

    loader.follow('A', 0);
    expect([loader.loading, loader.data]).toEqual([true, null]);
    calls[0]?.resolve(['a1']);
    await Promise.resolve();
    await Promise.resolve();
    expect([loader.loading, loader.data]).toEqual([false, ['a1']]);

    loader.follow('A', 0);
    expect(calls).toHaveLength(1);

    loader.follow('A', 1);
    expect(calls).toHaveLength(2);
    expect([loader.loading, loader.data]).toEqual([false, ['a1']]);
    calls[1]?.resolve(['a1', 'a2']);
    await vi.waitFor(() => expect(loader.data).toEqual(['a1', 'a2']));
  });

  test('an answer for a key left behind is dropped, whatever order the answers come in', async () => {
    const { fetch, calls } = deferredFetch<string, string>();
    const loader = new Loader(fetch);
    loader.follow('A', 0);
    loader.follow('B', 0);

    calls[1]?.resolve('for B');
    await vi.waitFor(() => expect(loader.data).toBe('for B'));
    calls[0]?.resolve('for A');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(loader.data).toBe('for B');
    expect(loader.loading).toBe(false);
  });

  test("an older reload's late answer does not overwrite a newer one", async () => {
    const { fetch, calls } = deferredFetch<string, number>();
    const loader = new Loader(fetch);
    loader.follow('A', 0);
    loader.follow('A', 1);
    calls[1]?.resolve(2);
    await vi.waitFor(() => expect(loader.data).toBe(2));
    calls[0]?.resolve(1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(loader.data).toBe(2);
  });

  test('an error is kept as a problem beside the data, and Retry clears it', async () => {
    const { fetch, calls } = deferredFetch<string, string>();
    const loader = new Loader(fetch);
    loader.follow('B', 0);
    calls[0]?.reject(new ProblemError(refused));
    await vi.waitFor(() => expect(loader.problem).toEqual(refused));
    expect([loader.loading, loader.data]).toEqual([false, null]);

    void loader.load();
    calls[1]?.resolve('found');
    await vi.waitFor(() => expect(loader.data).toBe('found'));
    expect(loader.problem).toBeNull();

    // A failed reload keeps what is shown and says why it is not newer.
    loader.follow('B', 1);
    calls[2]?.reject(new Error('socket hang up'));
    await vi.waitFor(() => expect(loader.problem?.detail).toBe('socket hang up'));
    expect(loader.data).toBe('found');
  });

  test("a view's effect reloads when its key or its data's version moves", async () => {
    const { fetch, calls } = deferredFetch<{ storeId: string }, string>();
    const loader = new Loader(fetch);
    let storeId = $state('A');
    let version = $state(0);
    const stop = $effect.root(() => {
      $effect(() => loader.follow({ storeId }, version));
    });
    flushSync();
    version = 1;
    flushSync();
    storeId = 'B';
    flushSync();
    flushSync();
    expect(calls.map((c) => c.key.storeId)).toEqual(['A', 'A', 'B']);
    stop();
  });
});
