// Sync health never hides a failure (issue 12, items 7 and 9): a partial sync is not "up to date", and
// one store's server being down is that store's problem, not "offline".
import { describe, expect, it } from 'vitest';
import type { StoreSummary } from '#shared/contract/index';
import {
  allOffline,
  FRESHNESS_LABEL,
  freshness,
  isUnreachable,
  partialStores,
} from '#shared/domain/sync-health';

const NOW = Date.parse('2026-05-01T12:00:00Z');

function store(
  id: string,
  sync: Partial<StoreSummary['sync']>,
  kind: 'api' | 'demo' = 'api',
): StoreSummary {
  return {
    id,
    name: id,
    baseUrl: 'https://example.test/api/public/v1',
    kind,
    keyStorage: 'keychain',
    sync: {
      state: 'idle',
      lastSyncedAt: '2026-05-01T11:59:00Z',
      lastAttemptAt: '2026-05-01T11:59:00Z',
      lastOutcome: 'ok',
      lastProblem: null,
      progress: null,
      resources: { tests: null, results: null, campaigns: null, audiences: null },
      ...sync,
    },
    counts: { tests: 276, removed: 0, setAside: 24 },
  };
}

describe('a partly failed sync', () => {
  it('is not shown as up to date', () => {
    const partial = store('acme', { lastOutcome: 'partial' });
    expect(freshness(partial, NOW)).toBe('partial');
    expect(FRESHNESS_LABEL.partial).toMatch(/partial/);
    expect(partialStores([partial, store('other', {})]).map((s) => s.id)).toEqual(['acme']);
  });
});

describe("one store's server down", () => {
  const down = store('acme', { lastOutcome: 'offline' });
  const fine = store('nordic', {});

  it('is that store being unreachable, not the app being offline', () => {
    expect(isUnreachable(down)).toBe(true);
    expect(allOffline([down, fine])).toBe(false);
    expect(FRESHNESS_LABEL.offline).toBe("Can't be reached");
  });

  it('is offline when no store can be reached; the in-process demo store does not count', () => {
    const demo = store('demo', {}, 'demo');
    expect(allOffline([down, store('nordic', { lastOutcome: 'offline' }), demo])).toBe(true);
    expect(allOffline([demo])).toBe(false);
  });
});
