// Offline edits in the real renderer (Chromium, browser host, real core, simulator over HTTP): edit a title
// offline, see it marked as not sent, reconnect and sync, see it confirmed and held once by the store; then
// resolve a conflict with another user's change from the Pending changes view.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, syncStore, tempDir, testSecrets } from '../support/core';

const SCREENS = resolve('test-results/screens');
const STORE = 'Acme Outdoor';

const data = tempDir('splitbook-e2e-edits-');
let core: Core;
let simulator: Simulator;
let served: ServedSimulator;
let win: RendererWindow | undefined;
let page: Page;
let storeId = '';
/** Every PATCH the core sent, by path. */
const patches: { path: string; body: unknown }[] = [];

async function screens(name: string) {
  await screenshotsAtEverySize(page, SCREENS, `edits-${name}`);
}

function openView(label: string) {
  return page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: new RegExp(`^${label}`) })
    .click();
}

async function openTest(title: string) {
  await openView('Tests');
  await page.getByTestId('search').fill(title);
  await page
    .getByRole('row', { name: new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
    .first()
    .click();
  await expect.poll(() => page.getByTestId('detail-title').textContent()).toBe(title);
}

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  simulator = createSimulator({ seed: 8, stores: [{ name: STORE, tests: 40 }] });
  served = await serveSimulator(simulator);
  const recordingFetch: typeof fetch = async (input, init) => {
    if (init?.method === 'PATCH') {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      patches.push({
        path: new URL(url).pathname,
        body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : null,
      });
    }
    return fetch(input, init);
  };
  core = await startCore(data.path, {
    host: 'browser',
    secrets: testSecrets(),
    fetch: recordingFetch,
    clock: () => simulator.now(),
  });
  const apiKey = simulator.stores[0]?.apiKey ?? '';
  storeId = (
    await core.services.stores.add({ name: STORE, baseUrl: served.url, apiKey, sessionOnly: false })
  ).id;
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  win = await openRenderer(core);
  page = win.page;
  await page.locator('.store .main', { hasText: STORE }).click();
}, 60_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('offline edits in the window', { timeout: 120_000 }, () => {
  it('edits a title offline, marks it not sent, and sends it once when the store is back', async () => {
    const active = simulator.snapshot(STORE).tests.find((t) => t.status === 'active');
    if (!active) throw new Error('the store has no active test');
    await openTest(active.title);
    await page.getByRole('tab', { name: 'Edit' }).click();
    // A launched test: its goal is locked, with the reason.
    await expect
      .poll(() => page.getByTestId('lock-goal').textContent())
      .toBe('locked after launch');
    expect(await page.locator('#edit-goal').isDisabled()).toBe(true);

    await served.setOffline(true);
    const title = 'Hero banner, offline copy';
    await page.getByLabel('Title', { exact: true }).fill(title);
    await page.getByLabel('Title', { exact: true }).press('Enter');
    await expect
      .poll(() => page.getByTestId('field-state-title').textContent())
      .toMatch(/not yet sent|waiting to be sent/);
    await expect.poll(() => page.getByTestId('detail-title').textContent()).toBe(title);
    await expect.poll(() => page.getByTestId('unsent').textContent()).toBe('↑1');
    await expect
      .poll(() => page.getByTestId('status-unsent').textContent())
      .toMatch(/1 change not yet sent/);
    expect(patches).toHaveLength(0);
    // The smallest window keeps Settings whole in the status bar beside the unsent and other notes
    // (issue 21, item 4): the notes give up their width first.
    await page.setViewportSize({ width: 900, height: 560 });
    await page.getByTestId('status-unsent').waitFor();
    // A sync while offline adds the offline note: the bar is at its most crowded.
    await page.locator('body').click({ position: { x: 5, y: 540 } });
    await page.keyboard.press('Control+r');
    await page.getByTestId('status-offline').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: resolve(SCREENS, 'edits-status-900.png') });
    // Settings stays whole at 900 px, and at any narrower width a browser window may have (three
    // stores' notes crowd the bar as much as 760 px does these).
    for (const width of [900, 760]) {
      await page.setViewportSize({ width, height: 560 });
      const settings = await page.getByTestId('open-settings').boundingBox();
      expect((settings?.x ?? width) + (settings?.width ?? 0), `${width}`).toBeLessThanOrEqual(
        width,
      );
      expect(
        await page.evaluate(
          `(() => { const b = document.querySelector('[data-testid="open-settings"]'); return b.scrollWidth <= b.clientWidth + 1; })()`,
        ),
      ).toBe(true);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await screens('edit-tab');

    await openView('Pending changes');
    await page.getByTestId('pending-record').first().waitFor();
    expect(await page.getByTestId('pending-record').first().textContent()).toContain(title);
    await screens('pending');

    // The connection comes back: a sync (Ctrl+R) pushes, then pulls.
    await served.setOffline(false);
    await page.keyboard.press('Control+r');
    await page.getByText('Nothing waiting').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('unsent').count()).toBe(0);
    const server = simulator.snapshot(STORE).tests.find((t) => t.id === active.id);
    expect(server?.title).toBe(title);
    const sent = patches.filter((p) => p.path.endsWith(`/tests/${active.id}`));
    expect(sent).toEqual([{ path: expect.any(String) as string, body: { title } }]);

    await openTest(title);
    await page.getByRole('tab', { name: 'Edit' }).click();
    await page.getByLabel('Title', { exact: true }).waitFor();
    expect(await page.getByTestId('field-state-title').count()).toBe(0);
    expect(win?.pageErrors).toEqual([]);
  });

  it('discards an unsent edit from Pending changes after asking (issue 21, 1)', async () => {
    const draft = simulator.snapshot(STORE).tests.filter((t) => t.status === 'draft')[1];
    if (!draft) throw new Error('a second draft is needed');
    await served.setOffline(true);
    await openTest(draft.title);
    await page.getByRole('tab', { name: 'Edit' }).click();
    await page.getByLabel('Hypothesis').fill('To be discarded');
    await page.getByTestId('edit-save').click();
    await page.getByTestId('field-state-hypothesisDescription').waitFor();
    await openView('Pending changes');
    const record = page.getByTestId('pending-record').filter({ hasText: 'To be discarded' });
    await record.getByRole('button', { name: 'Discard…' }).click();
    await page.getByRole('dialog', { name: 'Discard this change?' }).waitFor();
    await page.getByRole('button', { name: 'Discard', exact: true }).click();
    await page.getByText('Nothing waiting').waitFor({ timeout: 10_000 });
    expect(await page.getByText('Not done').count()).toBe(0);
    await served.setOffline(false);
    expect(win?.pageErrors).toEqual([]);
  });

  it('Enter picks the highlighted tag; a new tag needs its own choice and can be renamed or removed until sent (issue 21, 2)', async () => {
    const draft = simulator.snapshot(STORE).tests.filter((t) => t.status === 'draft')[2];
    if (!draft) throw new Error('a third draft is needed');
    const checkout = simulator.snapshot(STORE).tags.find((t) => t.name === 'Checkout');
    if (!checkout) throw new Error('the store needs a Checkout tag');
    await served.setOffline(true);
    await openTest(draft.title);
    await page.getByRole('tab', { name: 'Edit' }).click();
    const picker = page.getByRole('combobox', { name: 'Tags' });
    const chips = page.getByRole('list', { name: 'Chosen tags' });
    // Partial text: Enter takes the suggestion highlighted, never a new tag "Che".
    await picker.fill('Che');
    await expect
      .poll(() =>
        page
          .getByRole('listbox', { name: 'Tags' })
          .getByRole('option', { selected: true })
          .textContent(),
      )
      .toMatch(/^\s*Checkout/);
    await picker.press('Enter');
    await expect.poll(() => chips.textContent()).toContain('Checkout');
    expect(await chips.textContent()).not.toMatch(/Che(?!ckout)/);
    // Nothing matches: Enter creates nothing and says how to create it.
    await picker.fill('Speedy delivery');
    await picker.press('Enter');
    await page.getByRole('status').filter({ hasText: 'No tag named' }).waitFor();
    await screens('tag-picker');
    // The explicit choice: ↓ to "Create tag …", then Enter.
    await picker.press('ArrowDown');
    expect(
      await page
        .getByRole('listbox', { name: 'Tags' })
        .getByRole('option', { selected: true })
        .textContent(),
    ).toContain('Create tag “Speedy delivery”');
    await picker.press('Enter');
    // The chip and its "new" mark render a moment apart: wait for both.
    await expect.poll(() => chips.textContent()).toMatch(/Speedy delivery\s*new/);
    await page.getByTestId('edit-save').click();
    await page.getByTestId('field-state-tagIds').waitFor();
    const tags = (await core.services.edits.list({ storeId })).filter((r) => r.kind === 'tag');
    expect(tags.map((r) => r.label)).toEqual(['Speedy delivery']);

    // Not sent yet: renamed from Pending changes; the test's change shows tag names, not ids.
    await openView('Pending changes');
    const tagRecord = page.getByTestId('pending-record').filter({ hasText: 'New tag' });
    await tagRecord.getByRole('button', { name: 'Rename…' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename the new tag' });
    await rename.getByLabel('Name').fill('Fast delivery');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => tagRecord.textContent()).toContain('Fast delivery');
    const testRecord = page.getByTestId('pending-record').filter({ hasText: draft.title });
    await expect.poll(() => testRecord.textContent()).toContain('Fast delivery');
    expect(await testRecord.textContent()).toContain('Checkout');
    expect(await testRecord.textContent()).not.toContain(checkout.id);
    await screens('pending-new-tag');
    // …and removed: it leaves the test's change too.
    await tagRecord.getByRole('button', { name: 'Remove…' }).click();
    await page.getByRole('dialog', { name: 'Remove this new tag?' }).waitFor();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('pending-record').filter({ hasText: 'New tag' }).count())
      .toBe(0);
    await expect.poll(() => testRecord.textContent()).not.toContain('Fast delivery');
    expect(simulator.snapshot(STORE).tags.map((t) => t.name)).not.toContain('Fast delivery');
    // Leave nothing waiting for the next test.
    await testRecord.getByRole('button', { name: 'Discard…' }).click();
    await page.getByRole('button', { name: 'Discard', exact: true }).click();
    await page.getByText('Nothing waiting').waitFor();
    await served.setOffline(false);
    expect(win?.pageErrors).toEqual([]);
  });

  it('holds a change made in the store meanwhile as a conflict, and keeps mine when asked', async () => {
    const draft = simulator.snapshot(STORE).tests.find((t) => t.status === 'draft');
    if (!draft) throw new Error('a draft is needed');
    await served.setOffline(true);
    await openTest(draft.title);
    await page.getByRole('tab', { name: 'Edit' }).click();
    await page.getByLabel('Hypothesis').fill('Mine');
    await page.getByTestId('edit-save').click();
    await page.getByTestId('field-state-hypothesisDescription').waitFor();
    simulator.touchTest(STORE, draft.id, { hypothesisDescription: 'Theirs' });
    await served.setOffline(false);
    await page.keyboard.press('Control+r');
    await openView('Pending changes');
    const record = page.getByTestId('pending-record').filter({ hasText: 'Theirs' });
    await record.getByRole('button', { name: 'Keep mine' }).waitFor({ timeout: 30_000 });
    // One record held as a conflict is one change waiting, counted once (issue 21, 7).
    await expect.poll(() => page.getByTestId('unsent').textContent()).toBe('↑1');
    await screens('conflict');
    await record.getByRole('button', { name: 'Keep mine' }).click();
    await page.keyboard.press('Control+r');
    await page.getByText('Nothing waiting').waitFor({ timeout: 30_000 });
    const server = simulator.snapshot(STORE).tests.find((t) => t.id === draft.id);
    expect(server?.hypothesisDescription).toBe('Mine');
    expect(win?.pageErrors).toEqual([]);
  });

  it("shows a failed load of the Edit tab's choices with Retry instead of empty pickers (issue 19, 4)", async () => {
    const draft = simulator.snapshot(STORE).tests.find((t) => t.status === 'draft');
    if (!draft) throw new Error('a draft is needed');
    // The host refuses the store's campaigns, as a broken cache would.
    await page.route('**/api/call/campaigns.list', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({
          ok: false,
          problem: {
            type: 'splitbook:internal',
            title: 'Campaigns could not be read',
            status: 500,
            detail: 'The cache could not be read.',
          },
        }),
      }),
    );
    await openTest(draft.title);
    await page.getByRole('tab', { name: 'Edit' }).click();
    const problem = page.getByTestId('edit-choices-problem');
    await expect.poll(() => problem.textContent()).toMatch(/Campaigns could not be read/);
    // Only "No campaign" and the test's own campaign: none of the store's others.
    const cached = await core.services.campaigns.list({ storeId });
    expect(cached.length).toBeGreaterThan(1);
    expect(await page.locator('#edit-campaignId option').count()).toBeLessThanOrEqual(2);
    await expect
      .poll(() => page.locator('#edit-customAudienceIds').textContent())
      .toMatch(/Not loaded/);
    await screens('choices-failed');

    await page.unroute('**/api/call/campaigns.list');
    await problem.getByRole('button', { name: 'Retry' }).click();
    await problem.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.locator('#edit-campaignId option').allTextContents())
      .toEqual(expect.arrayContaining(cached.map((row) => row.campaign.name)));
    expect(win?.pageErrors).toEqual([]);
  });
});
