// A store whose first listed test is too large to read (issue 23, item 1) can still be added, and a
// new key is still told apart from another store's: the key check reads pages as the sync does.
// Real SQLite, the simulator over loopback HTTP, the session key ring.
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { ProblemError } from '#shared/problem';
import { createSimulator, serveSimulator } from '#simulator/index';
import { startCore, syncStore, tempDir } from '../support/core';

const TWELVE_MB = 12 * 1024 * 1024;

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function world(acmeTests: number) {
  const sim = createSimulator({
    seed: 31,
    stores: [
      { name: 'Acme', tests: acmeTests },
      { name: 'Nordic', tests: 24 },
    ],
  });
  const served = await serveSimulator(sim, { port: 0 });
  const dir = tempDir('splitbook-oversized-add-');
  const core: Core = await startCore(dir.path, { clock: () => sim.now() });
  close = async () => {
    await core.close();
    await served.close();
    dir.remove();
  };
  const [acme, nordic] = sim.stores;
  if (!acme || !nordic) throw new Error('two stores expected');
  /** Makes the first test the store lists too large for any page. */
  const bloatFirst = (store: 'Acme' | 'Nordic') => {
    const first = sim.snapshot(store).tests[0];
    if (!first) throw new Error('no test');
    sim.touchTest(store, first.id, { title: 'x'.repeat(TWELVE_MB) });
    return first.id;
  };
  return { sim, core, url: served.url, acme, nordic, bloatFirst };
}

describe('adding a store whose first test is too large', { timeout: 60_000 }, () => {
  it('adds a store of one test that can never be read, and its sync sets that test aside', async () => {
    const { core, url, acme, bloatFirst } = await world(1);
    const big = bloatFirst('Acme');
    const store = await core.services.stores.add({
      name: 'Acme',
      baseUrl: url,
      apiKey: acme.apiKey,
      sessionOnly: true,
    });
    const report = await syncStore(core, store.id);
    expect(report.outcome).not.toBe('ok');
    expect(report.testsSeen).toBe(0);
    const issues = await core.services.sync.issues({
      storeId: store.id,
      kind: null,
      cursor: null,
      limit: 10,
    });
    expect(issues.rows.map((r) => r.recordId)).toEqual([big]);
  });

  it('adds a store of 40 whose first test is too large, and caches the other 39', async () => {
    const { core, url, acme, bloatFirst } = await world(40);
    bloatFirst('Acme');
    const store = await core.services.stores.add({
      name: 'Acme',
      baseUrl: url,
      apiKey: acme.apiKey,
      sessionOnly: true,
    });
    const report = await syncStore(core, store.id);
    expect(report.outcome).toBe('partial');
    expect(report.testsSeen).toBe(39);
  });

  it("still tells another store's key apart when that store's first test is too large", async () => {
    const { core, url, acme, nordic, bloatFirst } = await world(30);
    const store = await core.services.stores.add({
      name: 'Acme',
      baseUrl: url,
      apiKey: acme.apiKey,
      sessionOnly: true,
    });
    expect((await syncStore(core, store.id)).outcome).toBe('ok');
    bloatFirst('Nordic');
    bloatFirst('Acme');
    const refused = await core.services.stores
      .setKey({ storeId: store.id, apiKey: nordic.apiKey, sessionOnly: true })
      .then(
        () => null,
        (error: unknown) => (error instanceof ProblemError ? error.problem : error),
      );
    expect(refused).toMatchObject({ title: 'This key reads another store' });
    // Acme's own key, its first test as unreadable, is taken as Acme's.
    await core.services.stores.setKey({
      storeId: store.id,
      apiKey: acme.apiKey,
      sessionOnly: true,
    });
  });
});
