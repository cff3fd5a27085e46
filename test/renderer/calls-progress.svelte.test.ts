// The status bar's "Making calls again": decisions.progress while a refresh lasts, cleared by its last
// event (every call made), as the window's state sees it.
import { describe, expect, test, vi } from 'vitest';
import type { EventPayload } from '#shared/contract/index';

const listeners = vi.hoisted(() => new Map<string, Set<(payload: never) => void>>());
// The bridge as the browser host's page has it: what the core emits reaches `on` listeners.
vi.hoisted(() => {
  vi.stubGlobal('window', {
    splitbook: {
      on(name: string, listener: (payload: never) => void) {
        const set = listeners.get(name) ?? new Set();
        set.add(listener);
        listeners.set(name, set);
        return () => set.delete(listener);
      },
    },
  });
});

import {
  callsProgress,
  followCallsProgress,
} from '../../src/renderer/src/decisions/callsProgress.svelte';

function emit(payload: EventPayload<'decisions.progress'>) {
  for (const listener of listeners.get('decisions.progress') ?? [])
    (listener as (p: typeof payload) => void)(payload);
}

describe('calls made again, as the status bar shows them', () => {
  test('follow a refresh from its first progress to its last, then clear', () => {
    const off = followCallsProgress();
    expect(callsProgress.current).toBeNull();
    emit({ storeId: null, done: 1200, total: 6979 });
    expect(callsProgress.current).toEqual({ storeId: null, done: 1200, total: 6979 });
    emit({ storeId: null, done: 4100, total: 6979 });
    expect(callsProgress.current?.done).toBe(4100);
    emit({ storeId: null, done: 6979, total: 6979 });
    expect(callsProgress.current).toBeNull();
    off();
    emit({ storeId: null, done: 10, total: 20 });
    expect(callsProgress.current).toBeNull();
  });
});
