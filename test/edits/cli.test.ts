// The CLI and the outbox: `pending` lists it, `sync` pushes before it pulls and exits 1 when an edit
// was refused or conflicts. Driven through runCli with a real core on the world's data folder.
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../../src/main/hosts/cli/run';
import { createMemorySecretStore } from '#core/secrets/index';
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

it('sync sends, after an ok pull, what still waited for it: a tag whose id the pull showed, and the edit using it', async () => {
  world = await editsWorld();
  const { core, storeId, sim } = world;
  const test = testWithStatus(world, LAUNCHED);
  const other = sim.snapshot('Acme').tests.find((t) => t.id !== test.id);
  if (!other) throw new Error('two tests needed');
  const tag = await core.services.edits.createTag({ storeId, name: 'Lost tag' });
  await core.services.edits.editTest({ storeId, testId: test.id, changes: { tagIds: [tag.id] } });
  // The tag reaches the store but its answer is lost: Splitbook cannot know its id.
  sim.loseAnswers(1, 'reset');
  await core.services.edits.push({ storeId });
  const created = sim.snapshot('Acme').tags.find((t) => t.name === 'Lost tag');
  if (!created) throw new Error('the tag should have reached the store');
  // Someone tags another test with it: the next pull shows its id.
  sim.touchTest('Acme', other.id, { tags: [...other.tags, created] });
  await world.stop();

  // One sync: its push meets the 409 (the tag waits), the pull learns the id, and what waited goes.
  const synced = await cli(world, ['sync', '--store', storeId]);
  expect(synced.err).toBe('');
  expect(synced.code).toBe(0);
  expect(serverTest(world, test.id).tags.map((t) => t.id)).toEqual([created.id]);
  expect(sim.snapshot('Acme').tags.filter((t) => t.name === 'Lost tag')).toHaveLength(1);
  expect((await cli(world, ['pending'])).out).toContain('No pending edits.');
}, 60_000);
