// The CLI and background syncs: `sync` stays the command for scheduled jobs (and its failures move a
// store's back-off, which the app goes by), `settings background-sync 30m|off` sets the schedule (and
// `--store` a store's own), `settings notifications on|off` the notices, and `stores` shows each store's
// next background sync and back-off. Driven through runCli over a real core on one data folder, against
// the simulator over loopback HTTP.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../src/main/hosts/cli/run';
import { createMemorySecretStore, type SecretStore } from '#core/secrets/index';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { startCore, tempDir } from '../support/core';

let dir: ReturnType<typeof tempDir>;
let served: ServedSimulator;
let secrets: SecretStore;
let storeId: string;
const NOW = Date.parse('2026-03-02T09:00:00.000Z');

beforeEach(async () => {
  dir = tempDir('splitbook-cli-background-');
  const sim = createSimulator({ seed: 4, stores: [{ name: 'Acme Outdoor', tests: 6 }] });
  served = await serveSimulator(sim);
  secrets = createMemorySecretStore();
  const core = await startCore(dir.path, { secrets, clock: () => NOW });
  storeId = (
    await core.services.stores.add({
      name: 'Acme Outdoor',
      baseUrl: served.url,
      apiKey: sim.stores[0]?.apiKey ?? '',
      sessionOnly: false,
    })
  ).id;
  await core.close();
});

afterEach(async () => {
  await served.close();
  dir.remove();
});

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, () => startCore(dir.path, { secrets, clock: () => NOW }), {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

it('sets the background schedule and the notices, globally and per store, and refuses what does not fit', async () => {
  const listed = await cli(['settings']);
  expect(listed.out).toMatch(
    /^background-sync {2}30m {2}\(Every 30 minutes; 15m, 30m, 1h, 4h, off\)/m,
  );
  expect(listed.out).toMatch(/^notifications {2}on {2}/m);

  expect((await cli(['settings', 'background-sync', 'off'])).out).toContain(
    'background-sync  off  (Only when I ask;',
  );
  expect((await cli(['settings', 'notifications', 'off'])).out).toMatch(
    /^notifications {2}off {2}/m,
  );
  expect((await cli(['settings'])).out).toContain('background-sync  off');

  expect((await cli(['settings', 'background-sync', '1h', '--store', 'Acme Outdoor'])).out).toBe(
    'Acme Outdoor: background-sync  1h  (Every hour; its own)',
  );
  expect((await cli(['settings', '--store', storeId])).out).toBe(
    'Acme Outdoor: background-sync  1h  (Every hour; its own)',
  );
  expect((await cli(['settings', 'background-sync', 'default', '--store', storeId])).out).toBe(
    'Acme Outdoor: background-sync  off  (Only when I ask; the global setting)',
  );

  const bad = await cli(['settings', 'background-sync', '10m']);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain(
    'Unknown value for background-sync: 10m. Use one of 15m, 30m, 1h, 4h, off.',
  );
  const notPerStore = await cli(['settings', 'notifications', 'off', '--store', storeId]);
  expect(notPerStore.code).toBe(2);
  expect(notPerStore.err).toContain('Only background-sync can be set per store');
});

it('shows each store’s next background sync and back-off; a failed `sync` moves them, a good one resets them', async () => {
  const before = await cli(['stores']);
  const [header, row] = before.out.split('\n');
  expect(header).toMatch(/LAST SYNCED\s+NEXT SYNC\s+BACK-OFF\s+TESTS$/);
  // Never synced: the app would sync it as soon as it runs.
  expect(row).toMatch(/never\s+2026-03-02T09:00:00\.000Z\s+none\s+0$/);

  await served.setOffline(true);
  const failed = await cli(['sync', '--store', storeId]);
  expect(failed.code).toBe(1);
  const backedOff = (await cli(['stores', '--json'])).out;
  const [summary] = JSON.parse(backedOff) as {
    background: { failures: number; backoffUntil: string };
  }[];
  expect(summary?.background.failures).toBe(1);
  const until = summary?.background.backoffUntil ?? '';
  expect(Date.parse(until)).toBeGreaterThan(NOW);
  expect((await cli(['stores'])).out).toContain(`1 failure, until ${until}`);

  await served.setOffline(false);
  expect((await cli(['sync', '--store', storeId])).code).toBe(0);
  const after = (await cli(['stores'])).out.split('\n')[1] ?? '';
  // Synced now: the next one is half an hour on (the default schedule), no back-off.
  expect(after).toMatch(/2026-03-02T09:00:00\.000Z\s+2026-03-02T09:30:00\.000Z\s+none\s+\d+$/);

  await cli(['settings', 'background-sync', 'off']);
  expect((await cli(['stores'])).out.split('\n')[1]).toMatch(/\soff\s+none\s+\d+$/);
});
