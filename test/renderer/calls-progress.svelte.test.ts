// The status bar's "Making calls again": decisions.progress while a refresh lasts, cleared by its last
// event (every call made), as the window's state sees it.
import { describe, expect, test } from 'vitest';
import { emit } from './bridge-stub';
import {
  callsProgress,
  followCallsProgress,
} from '../../src/renderer/src/decisions/callsProgress.svelte';

describe('calls made again, as the status bar shows them', () => {
  test('follow a refresh from its first progress to its last, then clear', () => {
    const off = followCallsProgress();
    expect(callsProgress.current).toBeNull();
    emit('decisions.progress', { storeId: null, done: 1200, total: 6979 });
    expect(callsProgress.current).toEqual({ storeId: null, done: 1200, total: 6979 });
    emit('decisions.progress', { storeId: null, done: 4100, total: 6979 });
    expect(callsProgress.current?.done).toBe(4100);
    emit('decisions.progress', { storeId: null, done: 6979, total: 6979 });
    expect(callsProgress.current).toBeNull();
    off();
    emit('decisions.progress', { storeId: null, done: 10, total: 20 });
    expect(callsProgress.current).toBeNull();
  });
});
