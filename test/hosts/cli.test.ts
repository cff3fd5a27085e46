// The CLI host as a user runs it (`npm run cli -- …` through tsx), against a temp data folder and the simulated API.
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { runTsx, type Finished } from './support/spawn';

const ENTRY = 'src/main/hosts/cli/main.ts';
const realKeyring = process.env['SPLITBOOK_TEST_KEYRING'] === '1';
const root = mkdtempSync(join(tmpdir(), 'splitbook-cli-'));
let dirs = 0;
const freshDataDir = () => join(root, `data-${++dirs}`);

/** The environment of a user session without any keychain (no D-Bus session, no display). */
function withoutKeychain(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['DBUS_SESSION_BUS_ADDRESS'];
  delete env['DISPLAY'];
  delete env['SPLITBOOK_API_KEY'];
  return env;
}

function cli(
  dataDir: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<Finished> {
  return runTsx(ENTRY, ['--data-dir', dataDir, ...args], {
    env: options.env ?? withoutKeychain(),
    stdin: options.stdin,
  });
}

/** RFC 4180 records: quoted fields may hold commas, quotes ("") and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && c === '"') {
      quoted = false;
    } else if (quoted) {
      field += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  return records;
}

let simulator: ReturnType<typeof createSimulator>;
let served: ServedSimulator;
let acmeKey = '';

beforeAll(async () => {
  simulator = createSimulator({
    seed: 7,
    stores: [
      { name: 'Acme', tests: 30 },
      { name: 'Nordic', tests: 12 },
    ],
  });
  served = await serveSimulator(simulator);
  acmeKey = simulator.stores.find((s) => s.name === 'Acme')?.apiKey ?? '';
});
afterAll(async () => {
  await served.close().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

describe('the command line', () => {
  it('prints its usage and exits 2 without a command, with an unknown command or with a stray argument', async () => {
    const wrong = [
      [],
      ['frobnicate'],
      ['stores', 'extra'],
      ['sync', '--store', 'a', '--all'],
      ['export-tests'],
      ['--verbose'],
    ];
    for (const run of await Promise.all(wrong.map((args) => cli(freshDataDir(), args)))) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('usage: splitbook-cli');
    }
  });

  it('refuses an API key on the command line, where other users could see it, and never echoes it', async () => {
    const run = await cli(freshDataDir(), [
      'add-store',
      '--name',
      'Acme',
      '--base-url',
      served.url,
      '--api-key',
      'sk_live_VISIBLE',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SPLITBOOK_API_KEY');
    expect(run.stdout + run.stderr).not.toContain('sk_live_VISIBLE');
  });

  it('lists no stores in a fresh data folder', async () => {
    const run = await cli(freshDataDir(), ['stores']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('No stores yet') });
  });

  it('syncs the demo store with progress lines and exports its tests as CSV, one row per cached test', async () => {
    const dataDir = freshDataDir();
    expect((await cli(dataDir, ['add-demo'])).code).toBe(0);

    const sync = await cli(dataDir, ['sync']);
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(sync.stdout).toMatch(/^Demo store: tests \d+\/\d+$/m);
    expect(sync.stdout).toMatch(/^Demo store: results \d+\/\d+$/m);
    expect(sync.stdout).toMatch(/^Demo store: ok \(\d+ tests, /m);

    const stores = await cli(dataDir, ['stores']);
    const tests = Number(/^demo\s.*\s(\d+)$/m.exec(stores.stdout)?.[1]);
    expect(tests).toBeGreaterThan(0);

    const out = join(root, 'demo-tests.csv');
    const exported = await cli(dataDir, ['export-tests', '--store', 'demo', '--out', out]);
    expect(exported).toMatchObject({ code: 0, stdout: `Exported ${tests} tests to ${out}.\n` });
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.startsWith('\uFEFF')).toBe(true);
    const records = parseCsv(text.slice(1));
    expect(records[0]?.slice(0, 4)).toEqual(['store', 'store_id', 'test_id', 'title']);
    expect(records).toHaveLength(tests + 1);
    for (const record of records) expect(record).toHaveLength(records[0]?.length ?? 0);
    expect(existsSync(`${out}.partial`)).toBe(false);

    // export <report>: CSV on standard output without --out, and clear refusals.
    const piped = await cli(dataDir, [
      'export',
      'daily',
      '--store',
      'demo',
      '--status',
      'active,completed',
    ]);
    expect(piped.code).toBe(0);
    expect(piped.stdout.startsWith('\uFEFF"store","store_id","test_id","date"')).toBe(true);
    expect(piped.stderr).toMatch(/Exported \d+ rows of the daily report\./);
    const noBom = await cli(dataDir, ['export', 'campaigns', '--no-bom']);
    expect(noBom.stdout.startsWith('"store"')).toBe(true);
    const unknown = await cli(dataDir, ['export', 'tests', '--store', 'nope']);
    expect(unknown).toMatchObject({ code: 1 });
    expect(unknown.stderr).toContain('Unknown store');
    for (const bad of [
      ['export'],
      ['export', 'nonsense'],
      ['export', 'all'],
      ['export', 'tests', '--format', 'pdf'],
      ['export', 'tests', '--format', 'xlsx'],
    ]) {
      expect((await cli(dataDir, bad)).code).toBe(2);
    }
    const never = await cli(freshDataDir(), ['export', 'tests']);
    expect(never.code).toBe(1);
    expect(never.stderr).toMatch(/No stores|never been synced/);
  }, 120_000);

  it('fails with the problem title and detail for an unknown store', async () => {
    const run = await cli(freshDataDir(), ['sync', '--store', 'nope']);
    expect(run.code).toBe(1);
    // --store takes an id or an exact name, resolved the same way for every command.
    expect(run.stderr).toContain('Unknown store: No store has the id or the name "nope".');
  });

  it('does not add a store whose key the API refuses', async () => {
    const dataDir = freshDataDir();
    const env = { ...withoutKeychain(), SPLITBOOK_API_KEY: 'sk_test_wrong' };
    const run = await cli(dataDir, ['add-store', '--name', 'Acme', '--base-url', served.url], {
      env,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The API key was refused');
    expect(run.stderr).not.toContain('sk_test_wrong');
    expect((await cli(dataDir, ['stores'])).stdout).toContain('No stores yet');
  });

  it('says plainly that there is no keychain instead of storing a key anywhere else', async () => {
    const env = { ...withoutKeychain(), SPLITBOOK_API_KEY: acmeKey };
    const run = await cli(
      freshDataDir(),
      ['add-store', '--name', 'Acme', '--base-url', served.url],
      { env },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No keychain available');
    expect(run.stderr).not.toContain(acmeKey);
  });

  it('rejects an invalid base URL with the field and its message', async () => {
    const env = { ...withoutKeychain(), SPLITBOOK_API_KEY: acmeKey };
    const run = await cli(
      freshDataDir(),
      ['add-store', '--name', 'Acme', '--base-url', 'ftp://shop.example'],
      { env },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Invalid input: baseUrl: API base URL must start with https://');
  });
});

describe.skipIf(!realKeyring)(
  'the command line with a real keychain (GNOME Keyring over D-Bus)',
  () => {
    const dataDir = freshDataDir();
    const keyringEnv = () => ({ ...process.env, SPLITBOOK_API_KEY: '' });

    it('adds a store with the key from SPLITBOOK_API_KEY and another with the key piped on stdin', async () => {
      const fromEnv = await cli(
        dataDir,
        ['add-store', '--name', 'Acme', '--base-url', served.url],
        {
          env: { ...keyringEnv(), SPLITBOOK_API_KEY: acmeKey },
        },
      );
      expect(fromEnv.stderr).toBe('');
      expect(fromEnv.stdout).toMatch(
        /^Added store "Acme" with id \S+ \(key kept in: keychain\)\.$/m,
      );

      const nordicKey = simulator.stores.find((s) => s.name === 'Nordic')?.apiKey ?? '';
      const fromStdin = await cli(
        dataDir,
        ['add-store', '--name', 'Nordic', '--base-url', served.url],
        {
          env: keyringEnv(),
          stdin: `${nordicKey}\n`,
        },
      );
      expect(fromStdin.code).toBe(0);
      expect(fromStdin.stdout + fromStdin.stderr).not.toContain(nordicKey);

      const stores = await cli(dataDir, ['stores'], { env: keyringEnv() });
      expect(stores.stdout).toMatch(/Acme\s+api\s+never/);
      expect(stores.stdout).toMatch(/Nordic\s+api\s+never/);
    });

    it('syncs one store over HTTP and exports exactly the tests the API serves', async () => {
      const id =
        /^(\S+)\s+Acme\s/m.exec(
          (await cli(dataDir, ['stores'], { env: keyringEnv() })).stdout,
        )?.[1] ?? '';
      const sync = await cli(dataDir, ['sync', '--store', id], { env: keyringEnv() });
      // On a failure, the CLI's own words say why.
      expect(sync.code, `${sync.stderr}${sync.stdout}`).toBe(0);
      expect(sync.stdout).toContain('Acme: tests 30/30');
      expect(sync.stdout).toMatch(/^Acme: ok \(30 tests, /m);
      expect(sync.stdout).not.toContain('Nordic');

      const out = join(root, 'acme.csv');
      expect(
        (await cli(dataDir, ['export-tests', '--store', id, '--out', out], { env: keyringEnv() }))
          .code,
      ).toBe(0);
      const ids = parseCsv(readFileSync(out, 'utf8'))
        .slice(1)
        .map((r) => r[2]);
      expect(new Set(ids)).toEqual(new Set(simulator.snapshot('Acme').tests.map((t) => t.id)));
    });

    it('exits non-zero with the problem when the API cannot be reached', async () => {
      await served.close();
      const sync = await cli(dataDir, ['sync', '--all'], { env: keyringEnv() });
      expect(sync.code).toBe(1);
      expect(sync.stderr).toMatch(/^Acme: (offline|error)\. \S.*: \S/m);
      expect(sync.stderr).toMatch(/^Nordic: (offline|error)\. /m);
    }, 120_000);
  },
);
