// `edit` on the command line (issue 23, item 2): the real CLI process queues a test's edit in the outbox
// with the window's checks and words, offline too, prints the pending entry, and the next `sync` sends
// it to the simulator over HTTP on loopback. Exit 2 on a bad argument, 1 on a refused edit.
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../../src/main/hosts/cli/run';
import { createMemorySecretStore } from '#core/secrets/index';
import { ProblemError, type Problem } from '#shared/problem';
import { startCore } from '../support/core';
import { runTsx } from '../hosts/support/spawn';
import {
  DRAFT,
  LAUNCHED,
  editsWorld,
  serverTest,
  testWithStatus,
  type EditsWorld,
} from './support';

const ENTRY = 'src/main/hosts/cli/main.ts';

let world: EditsWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** The CLI as a user runs it: its own process on the world's data folder, no keychain needed. */
async function cliProcess(w: EditsWorld, args: string[]) {
  const env = { ...process.env };
  delete env['DBUS_SESSION_BUS_ADDRESS'];
  const run = await runTsx(ENTRY, ['--data-dir', w.dir.path, ...args], { env });
  return { code: run.code, out: run.stdout, err: run.stderr };
}

/** The same command line in this process, with the store's key for this session (to sync). */
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

/** The problem the window gets for the same edit, from the core's edits service. */
async function windowProblem(w: EditsWorld, testId: string, changes: Record<string, unknown>) {
  const core = await startCore(w.dir.path, {
    secrets: createMemorySecretStore(),
    pushOnEdit: false,
  });
  try {
    await core.services.edits.editTest({ storeId: w.storeId, testId, changes });
  } catch (error) {
    if (error instanceof ProblemError) return error.problem;
    throw error;
  } finally {
    await core.close();
  }
  throw new Error('the window accepted the edit');
}

const said = (problem: Problem) => `${problem.title}: ${problem.detail}`;

it('queues an edit offline with tags by name, prints it as pending, and the next sync sends it', async () => {
  world = await editsWorld();
  const w = world;
  const test = testWithStatus(w, LAUNCHED);
  const tagged = w.sim.snapshot('Acme').tests.flatMap((t) => t.tags);
  const existing = tagged.find((tag) => !test.tags.some((t) => t.id === tag.id));
  if (!existing) throw new Error('a tag the test does not have is needed');
  const before = serverTest(w, test.id);
  await w.stop();
  await w.served.setOffline(true);

  const queued = await cliProcess(w, [
    'edit',
    '--store',
    'Acme',
    '--test',
    test.id,
    '--set',
    'title=Retitled by the nightly job',
    '--set',
    'impact=4',
    '--set',
    'hypothesisDescription=null',
    '--add-tag',
    existing.name.toUpperCase(),
    '--add-tag',
    'Made by cron',
  ]);
  expect(queued.err).toBe('');
  expect(queued.code).toBe(0);
  expect(queued.out).toContain(`test ${test.id} "Retitled by the nightly job": queued`);
  expect(queued.out).toContain(
    `title: ${JSON.stringify(before.title)} -> "Retitled by the nightly job"`,
  );
  expect(queued.out).toContain(`impact: ${JSON.stringify(before.impact)} -> 4`);
  expect(queued.out).toContain('hypothesisDescription:');
  expect(queued.out).toContain(`"${existing.name}"`);
  expect(queued.out).toContain('"Made by cron"');

  // Queued, not sent: the process exits with the edit in the outbox.
  await w.served.setOffline(false);
  expect(serverTest(w, test.id).title).toBe(before.title);
  const listed = await cliProcess(w, ['pending', '--store', 'Acme']);
  expect(listed.out).toMatch(/tag .+Made by cron\s+queued/);
  expect(listed.out).toContain('Retitled by the nightly job');
  expect(listed.out).toContain('impact=4');

  const synced = await cli(w, ['sync', '--store', 'Acme']);
  expect(synced.err).toBe('');
  expect(synced.code).toBe(0);
  expect(synced.out).toContain('2 edits sent, 0 failed');
  const after = serverTest(w, test.id);
  expect(after.title).toBe('Retitled by the nightly job');
  expect(after.impact).toBe(4);
  expect(after.hypothesisDescription ?? null).toBeNull();
  const made = w.sim.snapshot('Acme').tags.filter((t) => t.name === 'Made by cron');
  expect(made).toHaveLength(1);
  expect(after.tags.map((t) => t.id).sort()).toEqual(
    [...before.tags.map((t) => t.id), existing.id, made[0]?.id].sort(),
  );
  expect((await cli(w, ['pending'])).out).toBe('No pending edits.');

  // A tag comes off by name too, whatever its case.
  const removed = await cliProcess(w, [
    'edit',
    '--store',
    w.storeId,
    '--test',
    test.id,
    '--remove-tag',
    'MADE BY CRON',
  ]);
  expect(removed.code).toBe(0);
  // Online this time, and still only queued: the CLI never sends an edit by itself.
  expect(serverTest(w, test.id).tags.map((t) => t.name)).toContain('Made by cron');
  expect((await cli(w, ['sync', '--store', w.storeId])).code).toBe(0);
  expect(serverTest(w, test.id).tags.map((t) => t.name)).not.toContain('Made by cron');
}, 120_000);

it('exits 2 on a bad argument, before opening anything', async () => {
  world = await editsWorld();
  const w = world;
  const test = testWithStatus(w, LAUNCHED);
  await w.stop();
  const base = ['edit', '--store', 'Acme', '--test', test.id];
  const cases: [string[], string][] = [
    [[...base, '--set', 'colour=blue'], 'Unknown field: colour'],
    [[...base, '--set', 'impact=high'], 'impact takes a whole number (or null), not "high"'],
    [[...base, '--set', 'implemented=maybe'], 'implemented takes true, false or null'],
    [[...base, '--set', 'automaticallyEndAt=soon'], 'automaticallyEndAt takes a date and time'],
    [[...base, '--set', 'customAudienceIds=not-a-uuid'], 'Invalid value: customAudienceIds.0'],
    [[...base, '--set', 'title'], '--set takes FIELD=VALUE, not "title"'],
    [[...base, '--set', 'title=a', '--set', 'title=b'], 'title is set twice'],
    [[...base], 'edit needs at least one --set'],
    [['edit', '--store', 'Acme', '--set', 'title=x'], 'edit needs --test ID'],
    [[...base, '--set', 'tagIds=', '--add-tag', 'x'], 'not both'],
  ];
  const runs = await Promise.all(cases.map(([args]) => cliProcess(w, args)));
  runs.forEach((run, i) => {
    expect(run.code, cases[i]?.[0].join(' ')).toBe(2);
    expect(run.err).toContain(cases[i]?.[1]);
    expect(run.err).toContain('usage: splitbook-cli');
  });
}, 120_000);

it('exits 1 on a refused edit with the reason the window gives, and leaves nothing queued', async () => {
  world = await editsWorld();
  const w = world;
  const launched = testWithStatus(w, LAUNCHED);
  const draft = testWithStatus(w, DRAFT);
  await w.stop();
  const refusals: [string, string[], Record<string, unknown>][] = [
    [launched.id, ['--set', 'goal=revenue-per-visitor'], { goal: 'revenue-per-visitor' }],
    [draft.id, ['--set', 'implemented=true'], { implemented: true }],
    [launched.id, ['--set', 'title=null'], { title: null }],
    [launched.id, ['--set', 'title=  '], { title: '  ' }],
  ];
  for (const [testId, args, changes] of refusals) {
    const run = await cliProcess(w, ['edit', '--store', 'Acme', '--test', testId, ...args]);
    expect(run.code).toBe(1);
    expect(run.err.trim()).toBe(said(await windowProblem(w, testId, changes)));
  }
  // A refused edit takes the tag it would have created with it.
  const withTag = await cliProcess(w, [
    'edit',
    '--store',
    'Acme',
    '--test',
    launched.id,
    '--set',
    'device=desktop',
    '--add-tag',
    'Never used',
  ]);
  expect(withTag.code).toBe(1);
  expect(withTag.err).toContain("'device' is locked after launch (status: ");
  const unknown = await cliProcess(w, [
    'edit',
    '--store',
    'Acme',
    '--test',
    'no-such-test',
    '--set',
    'title=x',
  ]);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toContain('Test not found');
  const notOn = await cliProcess(w, [
    'edit',
    '--store',
    'Acme',
    '--test',
    launched.id,
    '--remove-tag',
    'Not on it',
  ]);
  expect(notOn.code).toBe(1);
  expect(notOn.err).toContain("The test has no tag named 'Not on it'");
  const store = await cliProcess(w, [
    'edit',
    '--store',
    'Nowhere',
    '--test',
    launched.id,
    '--set',
    'title=x',
  ]);
  expect(store.code).toBe(1);
  expect(store.err).toContain('Unknown store');
  expect((await cliProcess(w, ['pending'])).out.trim()).toBe('No pending edits.');
}, 120_000);
