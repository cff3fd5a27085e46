// The second walk's dialogs and lost connections (issue 44, item 11), in Chromium through the browser
// host over a real core and the simulator on loopback: Add store's words (a sentence under the address,
// no stale "key refused", a timeout told as it was waited), Settings' next sync after a schedule change
// and its buttons kept in view, Change API key naming the store a key belongs to, and a window whose
// host is gone saying so instead of "Failed to fetch" and a frozen sync.
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { BACKGROUND_SYNC_LABELS, backgroundSyncIntervalMs } from '#shared/contract/settings';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { startBrowserHost } from '../../src/main/hosts/browser/server';
import { RENDERER, serveRenderer, type RendererServer } from '../support/e2e';
import { addSimulatorStores, startCore, tempDir } from '../support/core';

const SHOTS = resolve('test-results/second-walk');
const data = tempDir('splitbook-second-walk-dialogs-');
const sim = createSimulator({
  seed: 45,
  stores: [
    { name: 'Store 1', tests: 30 },
    { name: 'Store 2', tests: 20 },
  ],
});
let served: ServedSimulator;
let core: Core;
let server: RendererServer;
/** Answers every request with a web page: an address that is not the API. */
let webPage: Server;
/** Never answers: a host that hangs. */
let hanging: Server;
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  served = await serveSimulator(sim, { port: 0 });
  webPage = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome to our shop</h1>'),
  );
  hanging = createServer(() => undefined);
  await Promise.all(
    [webPage, hanging].map((s) => new Promise<void>((done) => s.listen(0, '127.0.0.1', done))),
  );
  core = await startCore(data.path, { host: 'browser', clock: () => sim.now() });
  await addSimulatorStores(core, sim, served.url);
  server = await serveRenderer(core);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await core?.close();
  await served?.close();
  hanging?.closeAllConnections();
  await Promise.all(
    [webPage, hanging].map((s) => new Promise((done) => (s ? s.close(done) : done(null)))),
  );
  data.remove();
});

async function withPage(
  size: { width: number; height: number },
  run: (page: Page) => Promise<void>,
): Promise<void> {
  const context: BrowserContext = await server.browser.newContext({ viewport: size });
  try {
    const page = await context.newPage();
    await page.goto(server.host.url);
    await page.locator('.store .main').first().waitFor();
    await run(page);
  } finally {
    await context.close();
  }
}

async function addStoreDialog(page: Page) {
  await page.getByRole('button', { name: 'Add a store' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add a store' });
  await dialog.waitFor();
  return dialog;
}

describe('Add store (item 11)', { timeout: 120_000 }, () => {
  it('says under the address, as a sentence, that no API answers there', async () => {
    await withPage({ width: 1440, height: 900 }, async (page) => {
      const dialog = await addStoreDialog(page);
      await dialog.getByLabel('Name').fill('Shop front');
      await dialog.getByLabel('API base URL').fill(urlOf(webPage));
      await dialog.getByLabel('API key').fill('sk_test_whatever');
      await dialog.getByRole('button', { name: 'Add store' }).click();
      await expect
        .poll(async () => (await dialog.textContent()) ?? '')
        .toContain('No Store Experimentation API at this address.');
      expect(await dialog.textContent()).not.toContain('no Store Experimentation API');
    });
  });

  it('drops "The API key was refused" once the values change, whatever fails next', async () => {
    await withPage({ width: 1440, height: 900 }, async (page) => {
      const dialog = await addStoreDialog(page);
      await dialog.getByLabel('Name').fill('Wrong key');
      await dialog.getByLabel('API base URL').fill(served.url);
      await dialog.getByLabel('API key').fill('sk_test_not_a_key_of_any_store');
      await dialog.getByRole('button', { name: 'Add store' }).click();
      await expect
        .poll(async () => (await dialog.textContent()) ?? '')
        .toContain('The API key was refused');
      // A later mistake in the address: its own message, the key's gone.
      await dialog.getByLabel('API base URL').fill('not an address');
      await dialog.getByRole('button', { name: 'Add store' }).click();
      await expect
        .poll(async () => (await dialog.textContent()) ?? '')
        .toContain('API base URL must start with https://');
      expect(await dialog.textContent()).not.toContain('The API key was refused');
      await page.screenshot({ path: join(SHOTS, 'add-store-url-error-1440.png') });
    });
  });

  it('tells a host that never answers as long as it was waited for, not one try', async () => {
    await withPage({ width: 1440, height: 900 }, async (page) => {
      const dialog = await addStoreDialog(page);
      await dialog.getByLabel('Name').fill('Hanging');
      await dialog.getByLabel('API base URL').fill(urlOf(hanging));
      await dialog.getByLabel('API key').fill('sk_test_whatever');
      const started = Date.now();
      await dialog.getByRole('button', { name: 'Add store' }).click();
      await expect
        .poll(async () => (await dialog.textContent()) ?? '', { timeout: 60_000 })
        .toMatch(/did not answer within 10 s, 2 times in \d+ s\./);
      const said = Number(/2 times in (\d+) s/.exec((await dialog.textContent()) ?? '')?.[1]);
      expect(said).toBeGreaterThanOrEqual(20);
      expect(said).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
    });
  });
});

describe('Settings (item 11)', { timeout: 120_000 }, () => {
  it("shows each store's next sync by the schedule chosen, before and after saving", async () => {
    const [store] = await core.services.stores.list({});
    if (!store?.background) throw new Error('no background status');
    const before = store.background.nextAt;
    await withPage({ width: 1440, height: 900 }, async (page) => {
      await page.keyboard.press('Control+,');
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      const section = dialog.getByTestId('settings-background');
      const line = section.locator('li', { hasText: 'Store 1' }).locator('.state');
      await expect.poll(() => line.textContent()).toMatch(/^Next at /);
      const shown = await line.textContent();
      await section.getByLabel('Every store').selectOption('4h');
      // Not the old time: the new schedule, said to apply once saved.
      await expect
        .poll(() => line.textContent())
        .toBe(`${BACKGROUND_SYNC_LABELS['4h']}, once saved`);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      await page.keyboard.press('Control+,');
      await expect.poll(() => line.textContent()).toMatch(/^Next at /);
      expect(await line.textContent()).not.toBe(shown);
      const after = (await core.services.stores.list({}))[0]?.background?.nextAt ?? '';
      expect(Date.parse(after) - Date.parse(before ?? '')).toBe(
        (backgroundSyncIntervalMs('4h') ?? 0) - (backgroundSyncIntervalMs('30m') ?? 0),
      );
      await page.keyboard.press('Escape');
    });
    await core.services.settings.set({ backgroundSync: '30m' });
  });

  it('keeps Save and Cancel in the window when a setting is refused, at 900×560', async () => {
    await withPage({ width: 900, height: 560 }, async (page) => {
      await page.keyboard.press('Control+,');
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      const decisions = dialog.getByTestId('settings-decisions');
      await expect.poll(() => decisions.getByLabel('Minimum runtime').inputValue()).toBe('7');
      await decisions.getByLabel('Minimum runtime').fill('500');
      await dialog.getByRole('button', { name: 'Save' }).click();
      const banner = dialog.getByText('Some decision settings are out of range');
      await banner.waitFor();
      for (const target of [
        banner,
        dialog.getByRole('button', { name: 'Save' }),
        dialog.getByRole('button', { name: 'Cancel' }),
      ]) {
        const box = await target.boundingBox();
        expect(box && box.y >= 0 && box.y + box.height <= 560).toBe(true);
      }
      await page.screenshot({ path: join(SHOTS, 'settings-refused-900.png') });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });
  });
});

describe('Change API key (item 11)', { timeout: 120_000 }, () => {
  it('names the store a key already belongs to, and offers no "Add as new store"', async () => {
    await withPage({ width: 1440, height: 900 }, async (page) => {
      const row = page.locator('.store', { hasText: 'Store 1' });
      await row.hover();
      await page.getByRole('button', { name: 'More actions for Store 1' }).click();
      await page.getByRole('menuitem', { name: 'Change API key…' }).click();
      const dialog = page.getByRole('dialog', { name: /Change the API key/ });
      await dialog.getByLabel('New API key').fill(sim.stores[1]?.apiKey ?? '');
      await dialog.getByRole('button', { name: 'Save key and sync' }).click();
      const known = dialog.getByTestId('known-store');
      await known.waitFor();
      expect(await known.textContent()).toContain('This key reads Store 2, already in Splitbook');
      expect(await dialog.getByText('Add it as a new store').count()).toBe(0);
      expect(await dialog.getByTestId('different-store').count()).toBe(0);
      await page.screenshot({ path: join(SHOTS, 'change-key-known-1440.png') });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });
    // Nothing changed: Store 1 still reads its own tests.
    const [first] = await core.services.stores.list({});
    expect(first?.counts.tests).toBe(sim.snapshot('Store 1').tests.length);
  });
});

describe('a window whose host is gone (item 11)', { timeout: 120_000 }, () => {
  it('says it lost its connection, never "Failed to fetch", and shows no frozen sync', async () => {
    // A host of its own over the same core, stopped while the window is open and a sync runs.
    const own = await startBrowserHost({ core, staticDir: RENDERER });
    const context = await server.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(own.url);
      await page.locator('.store .main').first().waitFor();
      sim.setFaults({ latencyMs: 400 });
      const [store] = await core.services.stores.list({});
      await core.services.sync.start({ storeId: store?.id ?? '' });
      await page.getByTestId('sync-progress').waitFor();
      await own.close();
      const bar = page.locator('.status-bar');
      await expect
        .poll(() => bar.textContent(), { timeout: 20_000 })
        .toContain('Lost the connection to Splitbook');
      expect(await page.getByTestId('sync-progress').count()).toBe(0);
      // A view that asks the host now: the app's words, and a retry.
      await page
        .getByRole('navigation', { name: 'Stores and views' })
        .getByRole('button', { name: /^Campaigns/ })
        .click();
      const banner = page
        .getByRole('alert')
        .filter({ hasText: 'Lost the connection to Splitbook' });
      await banner.first().waitFor();
      expect(await page.locator('body').textContent()).not.toContain('Failed to fetch');
      expect(await banner.first().getByRole('button', { name: 'Retry' }).count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, 'host-gone-1440.png') });
    } finally {
      sim.setFaults({ latencyMs: 0 });
      await context.close();
      await own.close().catch(() => undefined);
    }
  });
});
