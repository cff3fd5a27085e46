// `decisions`, `stores --json` and `--store NAME` as a user runs them (tsx child process) over a data
// folder synced from the simulator over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import type { DecisionRow, StoreSummary } from '#shared/contract/index';
import { runTsx } from '../hosts/support/spawn';
import { startCore, syncStore, tempDir } from '../support/core';

const ENTRY = 'src/main/hosts/cli/main.ts';
const data = tempDir('splitbook-decisions-cli-');
const simulator = createSimulator({
  seed: 13,
  stores: [
    { name: 'Acme', tests: 30 },
    { name: 'Nordic', tests: 15 },
  ],
});
let served: ServedSimulator;
const ids: Record<string, string> = {};
let expected: DecisionRow[] = [];
let stores: StoreSummary[] = [];

const cli = (args: string[]) => runTsx(ENTRY, ['--data-dir', data.path, ...args]);

beforeAll(async () => {
  served = await serveSimulator(simulator);
  const core = await startCore(data.path, { clock: () => simulator.now() });
  const add = async (name: string, simulated: string) =>
    (
      await core.services.stores.add({
        name,
        baseUrl: served.url,
        apiKey: simulator.stores.find((s) => s.name === simulated)?.apiKey ?? '',
        sessionOnly: true,
      })
    ).id;
  ids['Acme'] = await add('Acme', 'Acme');
  ids['Nordic'] = await add('Nordic', 'Nordic');
  // Two stores of one name: a name that cannot say which.
  await add('Twin', 'Nordic');
  await add('Twin', 'Nordic');
  for (const name of ['Acme', 'Nordic']) {
    expect((await syncStore(core, ids[name] ?? '')).outcome).toBe('ok');
  }
  expected = (await core.services.decisions.list({ storeId: null })).rows;
  stores = await core.services.stores.list({});
  await core.close();
}, 60_000);

afterAll(async () => {
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('the decisions command', { timeout: 60_000 }, () => {
  it('prints every call by store: the words, the title, the reason, the days to decision', async () => {
    const run = await cli(['decisions']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(expected.length).toBeGreaterThan(5);
    const lines = run.stdout.trimEnd().split('\n');
    for (const name of ['Acme', 'Nordic']) {
      const rows = expected.filter((row) => row.storeId === ids[name]);
      const need = rows.filter((row) => row.call !== 'keep_running').length;
      const header = lines.findIndex((line) =>
        line.startsWith(`${name} (${ids[name]}): ${need} need`),
      );
      expect(header, `${name}'s block`).toBeGreaterThanOrEqual(0);
      // The store's rows in the list's order, two lines each, right under its header.
      const block = lines.slice(header + 1, header + 1 + rows.length * 2);
      rows.forEach((row, i) => {
        const days =
          row.daysToDecision === null
            ? ''
            : ` (${row.daysToDecision} day${row.daysToDecision === 1 ? '' : 's'} to decision)`;
        expect(block[i * 2]).toBe(`  ${row.words}: ${row.title}${days}`);
        expect(block[i * 2 + 1]).toBe(`    ${row.reason}`);
      });
    }
    expect(run.stdout).toContain('Twin (');
    expect(run.stdout).toContain('no decisions');
  });

  it('prints the rows as JSON with --json, for one store named by its name or its id', async () => {
    const byName = await cli(['decisions', '--store', 'Acme', '--json']);
    expect(byName.code).toBe(0);
    const rows = JSON.parse(byName.stdout) as DecisionRow[];
    expect(rows).toEqual(expected.filter((row) => row.storeId === ids['Acme']));
    const byId = await cli(['decisions', '--json', '--store', ids['Acme'] ?? '']);
    expect(byId.stdout).toBe(byName.stdout);
    const all = await cli(['decisions', '--all', '--json']);
    expect(JSON.parse(all.stdout)).toEqual(expected);
  });

  it('refuses --store with --all, and --json where it means nothing (exit 2)', async () => {
    for (const args of [
      ['decisions', '--store', 'Acme', '--all'],
      ['export', 'tests', '--json'],
      ['decisions', 'extra'],
    ]) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: splitbook-cli');
    }
  });
});

describe('--store NAME and stores --json', { timeout: 60_000 }, () => {
  it('takes a store’s exact name in every command, and refuses an unknown or ambiguous one (exit 1)', async () => {
    const exported = await cli(['export', 'tests', '--store', 'Nordic']);
    expect(exported.code).toBe(0);
    const csvRows = exported.stdout.trimEnd().split('\r\n').slice(1);
    expect(csvRows.length).toBeGreaterThan(0);
    expect(csvRows.every((line) => line.includes(`"${ids['Nordic']}"`))).toBe(true);
    expect((await cli(['pending', '--store', 'Nordic'])).code).toBe(0);
    const changes = await cli(['changes', '--store', 'Acme']);
    expect(changes.stdout).toContain(`Acme (${ids['Acme']})`);

    const unknown = await cli(['decisions', '--store', 'Nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown store: No store has the id or the name "Nope".');
    const sync = await cli(['sync', '--store', 'acme']);
    expect(sync.code, 'names match exactly, case included').toBe(1);
    expect(sync.stderr).toContain('Unknown store');
    const twin = await cli(['export', 'tests', '--store', 'Twin']);
    expect(twin.code).toBe(1);
    expect(twin.stderr).toMatch(/Ambiguous store name: 2 stores are named "Twin" \(ids .+, .+\)/);
    expect(twin.stdout).toBe('');
  });

  it('prints the stores as JSON, as the window gets them, and never a key', async () => {
    const run = await cli(['stores', '--json']);
    expect(run.code).toBe(0);
    const listed = JSON.parse(run.stdout) as StoreSummary[];
    expect(listed.map((s) => [s.id, s.name, s.kind])).toEqual(
      stores.map((s) => [s.id, s.name, s.kind]),
    );
    expect(listed.find((s) => s.id === ids['Acme'])?.counts.tests).toBe(30);
    for (const store of simulator.stores) expect(run.stdout).not.toContain(store.apiKey);
  });
});
