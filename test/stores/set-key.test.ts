// Replacing a store's key (issue 21, item 3): a key given after a refusal syncs at once, and a key that
// reads another store is never mixed into this one's cache: refused with a question, then either the
// cache is replaced whole or nothing changes. Real SQLite, the simulator over loopback HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { compareListing } from '#core/stores/identity';
import { PROBLEM_TYPES, ProblemError } from '#shared/problem';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { allTestRows, nextSyncReport, startCore, syncStore, tempDir } from '../support/core';

describe('which store a key reads', () => {
  const cached = new Set(['a', 'b', 'c']);
  it('is the same store when any listed test is cached', () => {
    expect(compareListing(cached, ['x', 'b'], 40)).toEqual({ same: true });
  });
  it('is another store when none is', () => {
    expect(compareListing(cached, ['x', 'y'], 40)).toEqual({
      same: false,
      cached: 3,
      listed: 40,
      sampled: 2,
    });
  });
  it('has nothing to compare with an empty cache or an empty listing', () => {
    expect(compareListing(new Set(), ['x'], 1)).toEqual({ same: true });
    expect(compareListing(cached, [], 0)).toEqual({ same: true });
  });
});

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** Two stores behind one address; keys in `revoked` are refused with 401, as a revoked key would be. */
async function world() {
  const sim = createSimulator({
    seed: 12,
    stores: [
      { name: 'Acme', tests: 30 },
      { name: 'Nordic', tests: 24 },
    ],
  });
  const served: ServedSimulator = await serveSimulator(sim, { port: 0 });
  const revoked = new Set<string>();
  const guarded: typeof fetch = async (input, init) => {
    const auth = new Headers(init?.headers).get('authorization') ?? '';
    if (revoked.has(auth.replace(/^Bearer /, '')))
      return new Response(
        JSON.stringify({
          type: 'about:blank',
          title: 'Unauthorized',
          status: 401,
          detail: 'Key revoked',
        }),
        { status: 401, headers: { 'content-type': 'application/problem+json' } },
      );
    return fetch(input, init);
  };
  const dir = tempDir('splitbook-set-key-');
  const core: Core = await startCore(dir.path, { fetch: guarded, clock: () => sim.now() });
  const [acme, nordic] = sim.stores;
  if (!acme || !nordic) throw new Error('two stores expected');
  const store = await core.services.stores.add({
    name: 'Acme',
    baseUrl: served.url,
    apiKey: acme.apiKey,
    sessionOnly: true,
  });
  expect((await syncStore(core, store.id)).outcome).toBe('ok');
  close = async () => {
    await core.close();
    await served.close();
    dir.remove();
  };
  return {
    sim,
    core,
    url: served.url,
    storeId: store.id,
    acmeKey: acme.apiKey,
    nordicKey: nordic.apiKey,
    revoked,
  };
}

async function problemOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemError) return error.problem;
    throw error;
  }
  throw new Error('expected a problem');
}

describe('stores.setKey', { timeout: 60_000 }, () => {
  it('syncs at once when a refused key is replaced: the refusal is gone without a retry', async () => {
    const { core, storeId, acmeKey, revoked } = await world();
    revoked.add(acmeKey);
    const refused = await syncStore(core, storeId);
    expect(refused.outcome).toBe('error');
    expect(refused.problem?.type).toBe(PROBLEM_TYPES.unauthorized);
    revoked.clear(); // the store accepts the key again, as a new key would be
    const report = nextSyncReport(core, storeId);
    await core.services.stores.setKey({ storeId, apiKey: acmeKey, sessionOnly: true });
    expect((await report).outcome).toBe('ok');
    const [summary] = await core.services.stores.list({});
    expect(summary?.sync.lastOutcome).toBe('ok');
    expect(summary?.sync.lastProblem).toBeNull();
  });

  it('refuses a key that reads another store, changing nothing, and replaces the cache whole when told to', async () => {
    const { sim, core, storeId, nordicKey } = await world();
    const acmeIds = (await allTestRows(core, storeId, true)).map((t) => t.id).sort();
    expect(acmeIds).toHaveLength(30);
    await core.services.edits.editTest({
      storeId,
      testId: acmeIds[0] ?? '',
      changes: { title: 'Unsent, for Acme' },
    });

    const asked = await problemOf(
      core.services.stores.setKey({ storeId, apiKey: nordicKey, sessionOnly: true }),
    );
    expect(asked.type).toBe(PROBLEM_TYPES.differentStore);
    expect(asked.status).toBe(409);
    expect(asked.detail).toContain('30 tests cached for Acme');
    // Nothing changed: the same tests, the same key (a sync still reads Acme), the edit still waits.
    expect((await allTestRows(core, storeId, true)).map((t) => t.id).sort()).toEqual(acmeIds);
    expect((await syncStore(core, storeId)).outcome).toBe('ok');
    expect((await allTestRows(core, storeId, true)).map((t) => t.id).sort()).toEqual(acmeIds);

    const report = nextSyncReport(core, storeId);
    await core.services.stores.setKey({
      storeId,
      apiKey: nordicKey,
      sessionOnly: true,
      onDifferentStore: 'replace',
    });
    expect((await report).outcome).toBe('ok');
    // Nordic's tests only: none of Acme's left behind, none marked removed, no edit of Acme's to send.
    const nordicIds = sim
      .snapshot('Nordic')
      .tests.map((t) => t.id)
      .sort();
    expect((await allTestRows(core, storeId, true)).map((t) => t.id).sort()).toEqual(nordicIds);
    expect(await core.services.edits.list({ storeId })).toEqual([]);
    const [summary] = await core.services.stores.list({});
    expect(summary).toMatchObject({ name: 'Acme', counts: { tests: 24, removed: 0 } });
    // The review memory starts again: Nordic's tests are a baseline, not 24 new and 30 removed.
    const changes = await core.services.review.changes({
      storeId,
      since: null,
      probabilityThreshold: 0.1,
    });
    expect(changes.lines).toEqual([]);
  });

  it('names the store a key belongs to when that store is in Splitbook already, changing nothing (issue 44, item 11)', async () => {
    const { core, url, storeId, nordicKey } = await world();
    const nordic = await core.services.stores.add({
      name: 'Nordic Home',
      baseUrl: url,
      apiKey: nordicKey,
      sessionOnly: true,
    });
    expect((await syncStore(core, nordic.id)).outcome).toBe('ok');
    const acmeIds = (await allTestRows(core, storeId, true)).map((t) => t.id).sort();

    // Acme's "Change API key" given Nordic's key: not "add it as a new store", but which store it is.
    const asked = await problemOf(
      core.services.stores.setKey({ storeId, apiKey: nordicKey, sessionOnly: true }),
    );
    expect(asked.type).toBe(PROBLEM_TYPES.knownStore);
    expect(asked.status).toBe(409);
    expect(asked.title).toBe('This key reads Nordic Home, already in Splitbook');
    expect(asked.detail).toContain("those cached for Nordic Home, not Acme's");
    expect((await allTestRows(core, storeId, true)).map((t) => t.id).sort()).toEqual(acmeIds);
    expect((await syncStore(core, storeId)).outcome).toBe('ok');
  });
});
