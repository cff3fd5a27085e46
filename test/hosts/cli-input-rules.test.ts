// What the CLI takes (issue 46, item 11): one parser of days for every command (report, changes, programme
// refuse 2026-02-30 and 99999-01-01 alike, before opening anything), an edit's values by the API's own
// rules (a date and time that exists; controlTraffic 0–100; titles and tag names of a sane length) refused
// in the window's words with nothing queued, and a standard output closed early (`restore | head -1`,
// `edit | head -1`) ending quietly once the command is done. Real processes on a real folder where it
// matters, the simulator over HTTP on loopback.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProblemError } from '#shared/problem';
import { dispatch } from '../../src/main/hosts/common/dispatch';
import { runCli } from '../../src/main/hosts/cli/run';
import { createMemorySecretStore } from '#core/secrets/index';
import { startCore } from '../support/core';
import { DRAFT, editsWorld, testWithStatus, type EditsWorld } from '../edits/support';

const ENTRY = 'src/main/hosts/cli/main.ts';
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');

let world: EditsWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** The CLI in this process; `opened` says whether it got as far as opening the data folder. */
async function cliHere(argv: string[], open: () => ReturnType<typeof startCore>) {
  const out: string[] = [];
  const err: string[] = [];
  let opened = false;
  const code = await runCli(
    argv,
    async () => {
      opened = true;
      return open();
    },
    { out: (l) => out.push(l), err: (l) => err.push(l) },
  );
  return { code, opened, out: out.join('\n'), err: err.join('\n') };
}

const refuseToOpen = () => Promise.reject(new Error('the command opened the data folder'));

describe('days', () => {
  it.each([
    ['report', ['report', '--store', 'Acme', '--format', 'text', '--since']],
    ['report --until', ['report', '--store', 'Acme', '--format', 'text', '--until']],
    ['changes', ['changes', '--since']],
    ['programme', ['programme', '--since']],
  ])(
    '%s refuses a day that does not exist or has five digits, before opening anything',
    async (_name, args) => {
      for (const day of ['2026-02-30', '99999-01-01', '2025-02-29', 'yesterday']) {
        const run = await cliHere([...args, day], refuseToOpen);
        expect(run.code, day).toBe(2);
        expect(run.opened).toBe(false);
        expect(run.err).toContain(`${args.at(-1)} needs a date (YYYY-MM-DD), not ${day}.`);
      }
    },
  );
});

describe('an edit', () => {
  it('refuses a date and time that does not exist as a bad argument, before opening anything', async () => {
    for (const at of ['2026-02-30T10:00:00Z', '2026-03-01T24:00:00Z', '2026-03-01 10:00']) {
      const run = await cliHere(
        ['edit', '--store', 'Acme', '--test', 't', '--set', `automaticallyStartAt=${at}`],
        refuseToOpen,
      );
      expect(run.code, at).toBe(2);
      expect(run.opened).toBe(false);
      expect(run.err).toContain('automaticallyStartAt takes a date and time with its offset');
    }
  });

  it("refuses what the API's rules refuse in the window's words, and queues nothing", async () => {
    world = await editsWorld();
    const w = world;
    const draft = testWithStatus(w, DRAFT);
    const long = 'x'.repeat(120 * 1024);
    const open = async () => {
      const core = await startCore(w.dir.path, {
        secrets: createMemorySecretStore(),
        pushOnEdit: false,
      });
      return core;
    };
    await w.stop();
    type Asked = { changes: Record<string, unknown> } | { tag: string };
    const cases: [string[], Asked, string][] = [
      [
        ['--set', 'controlTraffic=-5'],
        { changes: { controlTraffic: -5 } },
        "'controlTraffic' must be from 0 to 100 (% of visitors), not -5",
      ],
      [
        ['--set', 'controlTraffic=101'],
        { changes: { controlTraffic: 101 } },
        "'controlTraffic' must be from 0 to 100",
      ],
      [
        ['--set', `title=${long}`],
        { changes: { title: long } },
        "'title' is too long: 122,880 characters, at most 250",
      ],
      [
        ['--set', `hypothesisDescription=${long}`],
        { changes: { hypothesisDescription: long } },
        'at most 5,000',
      ],
      [['--add-tag', long], { tag: long }, 'A name is at most 200 characters'],
    ];
    const core = await open();
    try {
      for (const [args, asked, words] of cases) {
        const run = await cliHere(['edit', '--store', 'Acme', '--test', draft.id, ...args], open);
        expect(run.code, words).toBe(1);
        expect(run.err).toContain(words);
        // The window, through the bridge's own dispatch: refused, with the same words.
        const envelope =
          'tag' in asked
            ? await dispatch(core, 'edits.createTag', { storeId: w.storeId, name: asked.tag })
            : await dispatch(core, 'edits.editTest', {
                storeId: w.storeId,
                testId: draft.id,
                changes: asked.changes,
              });
        expect(envelope.ok).toBe(false);
        if (!envelope.ok)
          expect(`${envelope.problem.title}: ${envelope.problem.detail}`).toContain(words);
        // And the service the CLI calls says it in the very words the CLI printed.
        const problem = await (
          'tag' in asked
            ? core.services.edits.createTag({ storeId: w.storeId, name: asked.tag })
            : core.services.edits.editTest({
                storeId: w.storeId,
                testId: draft.id,
                changes: asked.changes,
              })
        ).then(
          () => null,
          (error: unknown) => (error instanceof ProblemError ? error.problem : null),
        );
        expect(run.err.trim()).toBe(`${problem?.title}: ${problem?.detail}`);
      }
      expect(await core.services.edits.list({ storeId: w.storeId })).toEqual([]);
    } finally {
      await core.close();
    }
    // A value inside the rules goes through.
    const ok = await cliHere(
      [
        'edit',
        '--store',
        'Acme',
        '--test',
        draft.id,
        '--set',
        'automaticallyStartAt=2026-03-01T10:00:00+01:00',
        '--set',
        'controlTraffic=40',
      ],
      open,
    );
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('"2026-03-01T09:00:00.000Z"');
  }, 60_000);
});

/** The CLI in its own process whose standard output is closed after its first line, as `| head -1` does. */
function headOne(
  dataDir: string,
  args: string[],
): Promise<{ code: number | null; first: string; err: string }> {
  const env = { ...process.env };
  delete env['DBUS_SESSION_BUS_ADDRESS'];
  const child = spawn(process.execPath, [TSX_CLI, ENTRY, '--data-dir', dataDir, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let first = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (first !== '') return;
    first = chunk.toString().split('\n')[0] ?? '';
    child.stdout.destroy();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, first, err })));
}

describe('a standard output closed early', () => {
  it('ends edit and restore quietly once done: no stack trace, exit 0, the change made', async () => {
    world = await editsWorld();
    const w = world;
    const draft = testWithStatus(w, DRAFT);
    await w.stop();
    const edited = await headOne(w.dir.path, [
      'edit',
      '--store',
      'Acme',
      '--test',
      draft.id,
      '--set',
      'title=Cut short',
    ]);
    expect(edited.err).toBe('');
    expect(edited.code).toBe(0);
    expect(edited.first).toContain('"Cut short": queued');

    const file = join(w.dir.path, '..', `${w.storeId}.backup`);
    const backedUp = await headOne(w.dir.path, ['backup', '--out', file]);
    expect(backedUp.err).toBe('');
    expect(backedUp.code).toBe(0);
    const restored = await headOne(w.dir.path, ['restore', file]);
    expect(restored.err).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.first).toContain('Restored');
    expect(readdirSync(w.dir.path).some((name) => name.startsWith('before-restore-'))).toBe(true);
    expect(existsSync(file)).toBe(true);
  }, 120_000);
});
