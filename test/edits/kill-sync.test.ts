// The CLI's sync killed with SIGKILL while it sends 20 edits queued with `edit` (issue 23, item 3 c): a
// real process, its key in the keychain of a private D-Bus session, the simulator over HTTP on loopback.
// After the next syncs every edit is in the store, none is lost or left pending, none arrived more than a
// few times, a later edit made after the kill is not overwritten by the older one, and SQLite's check passes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import {
  faultWorld,
  fieldHistory,
  integrityOf,
  patchesPerTest,
  type FaultWorld,
} from './fault-world';
import { realKeyring } from '../support/core';

let world: FaultWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** `npm run cli -- sync` as its own process: node with tsx as a loader, so SIGKILL ends the CLI itself. */
function cliProcess(dataDir: string, args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main/hosts/cli/main.ts', '--data-dir', dataDir, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ended = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    out,
    err,
  }));
  return { child, ended };
}

it('SIGKILL while the CLI sync sends 20 edits: the next syncs send every edit, none twice over, the later one last', async (ctx) => {
  if (!realKeyring)
    ctx.skip(
      'Needs the keychain (the CLI in its own process reads the key there): npm test runs it in a private one.',
    );
  world = await faultWorld({ tests: 40, keychain: true });
  const w = world;
  const tests = w.sim.snapshot('Acme').tests.slice(0, 20);
  for (const [i, test] of tests.entries()) {
    const queued = await w.cli([
      'edit',
      '--store',
      'Acme',
      '--test',
      test.id,
      '--set',
      `title=Edit ${i + 1}`,
    ]);
    expect(queued.err).toBe('');
  }

  // Each answer 40 ms away; the process dies as the store applies the 8th PATCH, before its answer leaves.
  w.sim.setFaults({ latencyMs: 40 });
  const sync = cliProcess(w.dir.path, ['sync']);
  let killedAt: string | null = null;
  w.onPatch = ({ testId }) => {
    if (w.applied.length === 8 && killedAt === null) {
      killedAt = testId;
      sync.child.kill('SIGKILL');
    }
  };
  const killed = await sync.ended;
  w.onPatch = null;
  expect(killed.signal).toBe('SIGKILL');
  expect(killedAt).toBe(tests[7]?.id);
  expect(w.applied).toHaveLength(8);

  // After the kill the user retitles tests again: the one whose answer was lost, and one not sent yet.
  const inFlight = tests[7];
  const notYet = tests[15];
  if (!inFlight || !notYet) throw new Error('setup');
  const later: (readonly [typeof inFlight, string])[] = [
    [inFlight, 'Later edit of 8'],
    [notYet, 'Later edit of 16'],
  ];
  for (const [test, title] of later) {
    const queued = await w.cli([
      'edit',
      '--store',
      'Acme',
      '--test',
      test.id,
      '--set',
      `title=${title}`,
    ]);
    expect(queued.err).toBe('');
  }

  for (let i = 0; i < 2; i++) {
    const next = cliProcess(w.dir.path, ['sync']);
    const done = await next.ended;
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
  }

  const server = new Map(w.sim.snapshot('Acme').tests.map((t) => [t.id, t.title]));
  tests.forEach((test, i) => {
    const expected = later.find(([t]) => t.id === test.id)?.[1] ?? `Edit ${i + 1}`;
    expect(server.get(test.id), test.id).toBe(expected);
  });
  const pending = cliProcess(w.dir.path, ['pending']);
  expect((await pending.ended).out.trim()).toBe('No pending edits.');
  for (const [, count] of patchesPerTest(w.applied)) expect(count).toBeLessThanOrEqual(3);
  for (const [test, title] of later) {
    const titles = fieldHistory(w.applied, test.id, 'title');
    expect(titles.slice(titles.indexOf(title))).not.toContain(`Edit ${tests.indexOf(test) + 1}`);
  }
  expect(integrityOf(w.dir.path)).toEqual({ 'splitbook.db': 'ok', 'splitbook-user.db': 'ok' });
}, 180_000);
