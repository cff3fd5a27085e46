// An old backup restored after its tags were sent (issue 46, item 7), on real files and the simulator over
// loopback: a tag created and put on a test, backed up, sent (POST /tags and the PATCH), then the backup
// restored: the next sync's create meets the store's 409, finds the store's tag of that name on the test
// the store lists, and the edit using it goes on. Nothing is left failed or waiting, and the store holds
// the tag once.
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { createMemorySecretStore } from '#core/secrets/index';
import { startCore, syncStore, tempDir } from '../support/core';

let sim: Simulator;
let served: ServedSimulator;
let dir = tempDir();

beforeEach(async () => {
  sim = createSimulator({ seed: 21, stores: [{ name: 'Acme', tests: 16 }] });
  served = await serveSimulator(sim, { port: 0 });
});
afterEach(async () => {
  await served.close();
  dir.remove();
  dir = tempDir();
});

it('sends the edit using a tag an old backup creates again: the 409 is resolved by the tag a listed test carries', async () => {
  const core = await startCore(join(dir.path, 'data'), {
    secrets: createMemorySecretStore(),
    pushOnEdit: false,
  });
  try {
    const { id: storeId } = await core.services.stores.add({
      name: 'Acme',
      baseUrl: served.url,
      apiKey: sim.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    });
    expect((await syncStore(core, storeId)).outcome).toBe('ok');
    const test = sim.snapshot('Acme').tests.find((t) => ['active', 'paused'].includes(t.status));
    if (!test) throw new Error('a launched test is needed');
    const tag = await core.services.edits.createTag({ storeId, name: 'Launch week' });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { tagIds: [...test.tags.map((t) => t.id), tag.id] },
    });
    const file = join(dir.path, 'before-sync.backup');
    await core.data.backup(file);

    expect((await syncStore(core, storeId)).outcome).toBe('ok');
    expect(await core.services.edits.list({ storeId })).toEqual([]);
    const sent = sim.snapshot('Acme').tags.filter((t) => t.name === 'Launch week');
    expect(sent).toHaveLength(1);

    // The old backup brings the create and the edit back, as they were before they were sent.
    await core.data.restore(file);
    expect(
      (await core.services.edits.list({ storeId })).map((e) => [e.kind, e.state]).sort(),
    ).toEqual([
      ['tag', 'queued'],
      ['test', 'queued'],
    ]);
    const report = await syncStore(core, storeId);
    expect(report.outcome).toBe('ok');
    expect(await core.services.edits.list({ storeId })).toEqual([]);
    const server = sim.snapshot('Acme');
    expect(server.tags.filter((t) => t.name === 'Launch week')).toEqual(sent);
    expect(server.tests.find((t) => t.id === test.id)?.tags.map((t) => t.id)).toContain(
      sent[0]?.id,
    );
  } finally {
    await core.close();
  }
}, 60_000);
