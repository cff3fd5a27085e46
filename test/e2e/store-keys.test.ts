// A store's key replaced in the window (issue 21, item 3), in Chromium through the browser host over a real
// core and the simulator: "Save key and sync" clears a refused key's banner without Retry, and a key of
// another store is never mixed in: the dialog asks, and the key is added as a new store or replaces the
// store's cache whole.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, syncStore, tempDir } from '../support/core';

const SCREENS = resolve('test-results/screens');
const data = tempDir('splitbook-e2e-keys-');
const sim = createSimulator({
  seed: 14,
  stores: [
    { name: 'Acme Outdoor', tests: 30 },
    { name: 'Nordic Home', tests: 24 },
  ],
});
const [acme, nordic] = sim.stores;
/** Keys the "store" refuses with 401, as a revoked key. */
const revoked = new Set<string>();
let served: ServedSimulator;
let core: Core;
let win: RendererWindow | undefined;
let page: Page;
let storeId = '';

const guarded: typeof fetch = async (input, init) => {
  const auth = new Headers(init?.headers).get('authorization') ?? '';
  if (revoked.has(auth.replace(/^Bearer /, '')))
    return new Response(
      JSON.stringify({
        type: 'about:blank',
        title: 'Unauthorized',
        status: 401,
        detail: 'Revoked',
      }),
      { status: 401, headers: { 'content-type': 'application/problem+json' } },
    );
  return fetch(input, init);
};

function storeRow(name: string) {
  return page.locator('.store', { hasText: name });
}

async function openKeyDialog(name: string) {
  await storeRow(name).hover();
  await page.getByRole('button', { name: `More actions for ${name}` }).click();
  await page.getByRole('menuitem', { name: 'Change API key…' }).click();
  await page.getByRole('dialog', { name: /Change the API key/ }).waitFor();
}

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  if (!acme || !nordic) throw new Error('two stores expected');
  served = await serveSimulator(sim, { port: 0 });
  core = await startCore(data.path, { host: 'browser', fetch: guarded, clock: () => sim.now() });
  storeId = (
    await core.services.stores.add({
      name: 'Acme Outdoor',
      baseUrl: served.url,
      apiKey: acme.apiKey,
      sessionOnly: true,
    })
  ).id;
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  win = await openRenderer(core);
  page = win.page;
  await storeRow('Acme Outdoor').locator('.main').click();
}, 60_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('replacing a key in the window', { timeout: 120_000 }, () => {
  it('"Save key and sync" syncs: the refused key\'s banner goes without Retry', async () => {
    revoked.add(acme?.apiKey ?? '');
    await page.keyboard.press('Control+r');
    const banner = page.getByRole('alert').filter({ hasText: 'Acme Outdoor:' });
    await banner.waitFor({ timeout: 30_000 });
    await banner.getByRole('button', { name: 'Change key…' }).click();
    revoked.clear();
    const dialog = page.getByRole('dialog', { name: /Change the API key/ });
    await dialog.getByLabel('New API key').fill(acme?.apiKey ?? '');
    await dialog.getByRole('button', { name: 'Save key and sync' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => banner.count(), { timeout: 30_000 }).toBe(0);
    // The banner goes as the new key is kept; the sync it starts may still be finishing.
    await expect
      .poll(async () => (await core.services.stores.list({}))[0]?.sync.lastOutcome, {
        timeout: 30_000,
      })
      .toBe('ok');
    expect(win?.pageErrors).toEqual([]);
  });

  it('asks before a key of another store touches this one, and adds it as a new store', async () => {
    await openKeyDialog('Acme Outdoor');
    const dialog = page.getByRole('dialog', { name: /Change the API key/ });
    await dialog.getByLabel('New API key').fill(nordic?.apiKey ?? '');
    await dialog.getByRole('button', { name: 'Save key and sync' }).click();
    await dialog.getByTestId('different-store').waitFor();
    expect(await dialog.textContent()).toContain('30 tests cached for Acme Outdoor');
    await screenshotsAtEverySize(page, SCREENS, 'keys-different-store');
    await dialog.getByLabel('Name of the new store').fill('Nordic Home');
    await dialog.getByRole('button', { name: 'Add store and sync' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await core.services.stores.list({})).map((s) => [s.name, s.counts.tests]))
      .toEqual([
        ['Acme Outdoor', 30],
        ['Nordic Home', 24],
      ]);
    expect(win?.pageErrors).toEqual([]);
  });

  it("replaces the store's cache whole when that is the choice", async () => {
    // Nordic Home, added above, goes first: a key of a store still in Splitbook is named instead
    // (issue 44, item 11), with neither choice offered.
    const added = (await core.services.stores.list({})).find((s) => s.name === 'Nordic Home');
    if (added) await core.services.stores.remove({ storeId: added.id });
    await storeRow('Acme Outdoor').locator('.main').click();
    await openKeyDialog('Acme Outdoor');
    const dialog = page.getByRole('dialog', { name: /Change the API key/ });
    await dialog.getByLabel('New API key').fill(nordic?.apiKey ?? '');
    await dialog.getByRole('button', { name: 'Save key and sync' }).click();
    await dialog.getByTestId('different-store').waitFor();
    await dialog.getByLabel(/Replace Acme Outdoor's cache/).check();
    await dialog.getByRole('button', { name: "Replace Acme Outdoor's cache and sync" }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(async () => {
        const acmeRow = (await core.services.stores.list({})).find((s) => s.id === storeId);
        return [acmeRow?.counts.tests, acmeRow?.counts.removed, acmeRow?.sync.lastOutcome];
      })
      .toEqual([24, 0, 'ok']);
    expect(win?.pageErrors).toEqual([]);
  });
});
