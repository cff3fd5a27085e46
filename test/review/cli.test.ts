// `changes` and `review` as a user runs them (tsx child process) over a data folder synced from the simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { runTsx } from '../hosts/support/spawn';
import { startCore, syncStore, tempDir, testSecrets } from '../support/core';

const ENTRY = 'src/main/hosts/cli/main.ts';
const data = tempDir('splitbook-review-cli-');
let served: ServedSimulator;
let storeId = '';
let renamedId = '';

const cli = (args: string[]) => runTsx(ENTRY, ['--data-dir', data.path, ...args]);

beforeAll(async () => {
  const simulator = createSimulator({ seed: 9, stores: [{ name: 'Acme', tests: 20 }] });
  served = await serveSimulator(simulator);
  const core = await startCore(data.path, { secrets: testSecrets(), clock: () => simulator.now() });
  const apiKey = simulator.stores[0]?.apiKey ?? '';
  storeId = (
    await core.services.stores.add({
      name: 'Acme',
      baseUrl: served.url,
      apiKey,
      sessionOnly: false,
    })
  ).id;
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  const test = simulator.snapshot('Acme').tests[0];
  renamedId = test?.id ?? '';
  simulator.touchTest('Acme', renamedId, { title: 'Hero copy, take two' });
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  await core.close();
}, 60_000);

afterAll(async () => {
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('the review commands', { timeout: 60_000 }, () => {
  it('prints the changes since the first sync, marks the store reviewed, then prints none', async () => {
    const before = await cli(['changes']);
    expect(before.stderr).toBe('');
    expect(before.code).toBe(0);
    expect(before.stdout).toContain(
      `Acme (${storeId}): 1 change since the first sync (never reviewed)`,
    );
    expect(before.stdout).toMatch(
      new RegExp(
        `Hero copy, take two \\[${renamedId}\\]: Title changed on the server: .* → “Hero copy, take two”`,
      ),
    );

    const reviewed = await cli(['review', '--store', storeId]);
    expect(reviewed).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Marked .* reviewed at /),
    });

    const after = await cli(['changes', '--store', storeId]);
    expect(after.stdout).toMatch(/Acme .*: 0 changes since the review of /);
    const since = await cli(['changes', '--since', '2000-01-01']);
    expect(since.stdout).toContain('1 change since 2000-01-01');
  });

  it('refuses a bad date and a review without a store', async () => {
    expect((await cli(['changes', '--since', 'someday'])).code).toBe(2);
    expect((await cli(['review'])).code).toBe(2);
  });
});
