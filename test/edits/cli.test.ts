// The CLI and the outbox: `pending` lists it, `sync` pushes before it pulls and exits 1 when an edit
// was refused or conflicts. Driven through runCli with a real core on the world's data folder.
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../../src/main/hosts/cli/run';
import { createMemorySecretStore } from '../../src/main/core/secrets';
import { startCore } from '../support/core';
import { LAUNCHED, editsWorld, serverTest, testWithStatus, type EditsWorld } from './support';

let world: EditsWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

async function cli(w: EditsWorld, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    async () => {
      const core = await startCore(w.dir.path, {
        secrets: createMemorySecretStore(),
        pushOnEdit: false,
      });
      await core.services.stores.setKey({
        storeId: w.storeId,
        apiKey: w.apiKey,
        sessionOnly: true,
      });
      return core;
    },
    { out: (l) => out.push(l), err: (l) => err.push(l) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

it('lists pending edits, pushes them on sync, and exits 1 when one is refused', async () => {
  world = await editsWorld();
  const [good, bad] = [
    testWithStatus(world, LAUNCHED),
    world.sim.snapshot('Acme').tests.filter((t) => ['active', 'paused'].includes(t.status))[1],
  ];
  if (!bad) throw new Error('two launched tests needed');
  await world.core.services.edits.editTest({
    storeId: world.storeId,
    testId: good.id,
    changes: { title: 'From the CLI' },
  });
  await world.core.services.edits.editTest({
    storeId: world.storeId,
    testId: bad.id,
    changes: { effort: 42 },
  });
  await world.stop();

  const listed = await cli(world, ['pending', '--store', world.storeId]);
  expect(listed.code).toBe(0);
  expect(listed.out).toContain('From the CLI');
  expect(listed.out).toContain('queued');
  expect(listed.out).toContain('effort=42');

  const synced = await cli(world, ['sync', '--store', world.storeId]);
  expect(synced.code).toBe(1);
  expect(synced.out).toContain('1 edits sent, 1 failed');
  expect(synced.err).toContain('failed');
  expect(serverTest(world, good.id).title).toBe('From the CLI');

  const after = await cli(world, ['pending']);
  expect(after.out).not.toContain('From the CLI');
  expect(after.out).toContain('failed');
}, 60_000);
