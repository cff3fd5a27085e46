// Edits survive the process: recorded offline in one process and sent by the next; a process killed
// (SIGKILL) while a write's answer was on its way leaves no duplicate and loses nothing.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  LAUNCHED,
  editsWorld,
  serverTest,
  syncStore,
  testWithStatus,
  type EditsWorld,
} from './support';

let world: EditsWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** Runs the child; resolves with how it ended, killing it when `killWhen` says so. */
async function child(
  w: EditsWorld,
  script: Record<string, unknown>,
  options: { apiKey?: string; killWhen?: () => boolean } = {},
): Promise<{ events: string[]; signal: NodeJS.Signals | null }> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, 'fixtures/edit-child.ts'),
      w.dir.path,
      w.storeId,
      options.apiKey ?? '',
      JSON.stringify(script),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    proc.on('exit', (_c, signal) => resolve(signal)),
  );
  const events: string[] = [];
  let poll: NodeJS.Timeout | null = null;
  if (options.killWhen) {
    const killWhen = options.killWhen;
    poll = setInterval(() => {
      if (killWhen()) proc.kill('SIGKILL');
    }, 10);
  }
  for await (const line of createInterface({ input: proc.stdout }))
    events.push((JSON.parse(line) as { event: string }).event);
  const signal = await exited;
  if (poll) clearInterval(poll);
  return { events, signal };
}

it('an edit made offline survives a restart in a new process and reaches the store exactly once', async () => {
  world = await editsWorld();
  const test = testWithStatus(world, LAUNCHED);
  await world.stop();
  await world.served.setOffline(true);
  const run = await child(world, { testId: test.id, title: 'Written on a plane', push: false });
  expect(run.events).toContain('recorded');

  await world.served.setOffline(false);
  const core = await world.restart();
  expect(
    (await core.services.tests.get({ storeId: world.storeId, testId: test.id })).test.title,
  ).toBe('Written on a plane');
  expect((await core.services.edits.list({ storeId: world.storeId })).map((r) => r.state)).toEqual([
    'queued',
  ]);
  const report = await syncStore(core, world.storeId);
  expect(report.edits?.sent).toBe(1);
  expect(serverTest(world, test.id).title).toBe('Written on a plane');
  expect(world.writes.filter((w) => w.method === 'PATCH')).toHaveLength(1);
  expect(await core.services.edits.list({ storeId: world.storeId })).toEqual([]);
}, 60_000);

it('SIGKILL while a PATCH answer is on its way: sent again without harm, nothing lost', async () => {
  world = await editsWorld();
  const test = testWithStatus(world, LAUNCHED);
  await world.stop();
  world.sim.loseAnswers(1, 'hang');
  const w = world;
  const run = await child(
    w,
    { testId: test.id, title: 'Killed mid-flight', push: true },
    {
      apiKey: w.apiKey,
      killWhen: () => serverTest(w, test.id).title === 'Killed mid-flight',
    },
  );
  expect(run.signal).toBe('SIGKILL');
  expect(run.events).not.toContain('pushed');

  const core = await world.restart();
  expect((await core.services.tests.get({ storeId: w.storeId, testId: test.id })).test.title).toBe(
    'Killed mid-flight',
  );
  const report = await syncStore(core, w.storeId);
  expect(report.edits?.sent).toBe(1);
  expect(serverTest(w, test.id).title).toBe('Killed mid-flight');
  // The store already held the change: the re-read showed it, so nothing was sent twice.
  expect(w.writes.filter((x) => x.method === 'PATCH')).toHaveLength(0);
  expect(await core.services.edits.list({ storeId: w.storeId })).toEqual([]);
}, 60_000);

it('SIGKILL while a POST /custom-audiences answer is on its way: found by name, not created twice', async () => {
  world = await editsWorld();
  const test = testWithStatus(world, LAUNCHED);
  await world.stop();
  world.sim.loseAnswers(1, 'hang');
  const w = world;
  const named = () =>
    w.sim.snapshot('Acme').customAudiences.filter((a) => a.name === 'Lost answer');
  const run = await child(
    w,
    { testId: test.id, audienceName: 'Lost answer', push: true },
    {
      apiKey: w.apiKey,
      killWhen: () => named().length > 0,
    },
  );
  expect(run.signal).toBe('SIGKILL');
  const core = await world.restart();
  const report = await syncStore(core, w.storeId);
  expect(report.edits?.sent).toBe(1);
  expect(named()).toHaveLength(1);
  expect(w.writes.filter((x) => x.method === 'POST')).toHaveLength(0);
  expect(await core.services.edits.list({ storeId: w.storeId })).toEqual([]);
}, 60_000);

it('SIGKILL while a POST /tags answer is on its way: no duplicate; the dependent edit waits, then goes with the right id', async () => {
  world = await editsWorld();
  const test = testWithStatus(world, LAUNCHED);
  await world.stop();
  world.sim.loseAnswers(1, 'hang');
  const w = world;
  const named = () => w.sim.snapshot('Acme').tags.filter((t) => t.name === 'Lost tag');
  const run = await child(
    w,
    { testId: test.id, tagName: 'Lost tag', push: true },
    {
      apiKey: w.apiKey,
      killWhen: () => named().length > 0,
    },
  );
  expect(run.signal).toBe('SIGKILL');
  const core = await world.restart();
  await syncStore(core, w.storeId);
  // The repeated POST answered 409: the tag exists, its id is unknown (tags cannot be listed).
  expect(named()).toHaveLength(1);
  const waiting = await core.services.edits.list({ storeId: w.storeId });
  expect(waiting.map((r) => [r.kind, r.state])).toEqual([
    ['tag', 'waiting'],
    ['test', 'waiting'],
  ]);
  expect(waiting[0]?.note).toContain('cannot list tags');
  expect(w.writes.filter((x) => x.method === 'PATCH')).toHaveLength(0);

  // Someone tags another test with it: the next pull shows its id, and the edit is sent with it.
  const tag = named()[0];
  const other = w.sim.snapshot('Acme').tests.find((t) => t.id !== test.id);
  if (!tag || !other) throw new Error('setup');
  w.sim.touchTest('Acme', other.id, { tags: [...other.tags, tag] });
  await syncStore(core, w.storeId);
  await syncStore(core, w.storeId);
  expect(serverTest(w, test.id).tags.map((t) => t.id)).toEqual([tag.id]);
  expect(named()).toHaveLength(1);
  expect(await core.services.edits.list({ storeId: w.storeId })).toEqual([]);
}, 60_000);
