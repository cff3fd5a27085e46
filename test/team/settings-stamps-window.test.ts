// Who set a shared store's decision settings and a test's plan, and when, in Chromium through the browser host: a colleague's plan and settings (bob's desktop, a `team sync`) reach the open window's core by its connection, and the plan field and the store's decision settings say "set by bob" with the time.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { screenshotsAtEverySize } from '../support/chromium';
import { startCore, syncStore } from '../support/core';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const root = tempDir('team-settings-window');
const SHOTS = path.join(root, 'shots');
let server: RunningServer;
let alice: Core;
let bob: Core;
let window: RendererWindow;
let testId = '';

async function until(condition: () => Promise<boolean>, what: string, ms = 30_000) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > ms) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function openDecision(page: Page) {
  await page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: /^Decisions/ })
    .click();
  await page.locator(`[data-testid="decision-row"][data-test-id="${testId}"]`).click();
  await page.keyboard.press('Enter');
  await page.getByTestId('decision-plan').waitFor();
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const tokens = {
    alice: addMember(path.join(root, 'server'), 'alice', 'all'),
    bob: addMember(path.join(root, 'server'), 'bob', 'all'),
  };
  server = await startServer(path.join(root, 'server'));
  alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
  bob = await startCore(path.join(root, 'bob'));
  for (const core of [alice, bob]) {
    await core.services.stores.openDemo({});
    await syncStore(core, 'demo');
  }
  await alice.services.team.join({ url: server.url, token: tokens.alice });
  await bob.services.team.join({ url: server.url, token: tokens.bob });
  const { teamStoreId } = await alice.services.team.share({ storeId: 'demo' });
  await bob.services.team.link({ storeId: 'demo', teamStoreId });
  await bob.services.team.sync({ timeoutMs: 30_000 });
  // A running test whose plan is not its automatic end (which no plan of its own moves).
  const calls = await alice.services.decisions.list({ storeId: 'demo' });
  for (const row of calls.rows.filter((r) => r.call === 'keep_running')) {
    const detail = await alice.services.tests.get({ storeId: 'demo', testId: row.testId });
    if (detail.decision?.plan && detail.decision.plan.source !== 'automatically-end-at') {
      testId = row.testId;
      break;
    }
  }
  if (testId === '') throw new Error('the demo store has no running test with a plan');
  window = await openRenderer(alice);
});

afterAll(async () => {
  await window?.close();
  await alice?.close();
  await bob?.close();
  await server?.stop();
  if (!process.env['SPLITBOOK_KEEP_SHOTS']) removeDir(root);
});

describe("who set a shared store's decision settings and plans, in the window", () => {
  it("shows a colleague's plan in the plan field with who and when, the call made with it", async () => {
    const { page } = window;
    await openDecision(page);
    const plan = page.getByTestId('decision-plan');
    expect(await plan.getByTestId('plan-stamp').count()).toBe(0);

    await bob.services.decisions.setPlan({ storeId: 'demo', testId, plannedDays: 35 });
    await bob.services.team.sync({ timeoutMs: 30_000 });
    await expect
      .poll(() => plan.textContent(), { timeout: 15_000 })
      .toContain("35-day plan (this test's own)");
    await expect
      .poll(() => plan.getByTestId('plan-stamp').textContent(), { timeout: 15_000 })
      .toMatch(/^Plan set by bob, /);
    const bobs = await bob.services.tests.get({ storeId: 'demo', testId });
    const alices = await alice.services.tests.get({ storeId: 'demo', testId });
    expect(alices.decision?.call).toBe(bobs.decision?.call);
    expect(alices.decision?.plan).toEqual(bobs.decision?.plan);
    await screenshotsAtEverySize(page, SHOTS, 'plan-stamp', () => plan.scrollIntoViewIfNeeded());
  });

  it("says in the store's decision settings who set them last, and when", async () => {
    await bob.services.decisions.setSettings({
      storeId: 'demo',
      patch: { minRuntimeDays: 14 },
      clear: [],
    });
    await bob.services.team.sync({ timeoutMs: 30_000 });
    await until(
      async () =>
        (await alice.services.decisions.settings({})).stores.find((s) => s.storeId === 'demo')
          ?.overrides.minRuntimeDays === 14,
      "bob's settings on alice's desktop",
    );
    const { page } = window;
    await page.keyboard.press('Control+,');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    const section = dialog.getByTestId('settings-decisions');
    expect(await section.getByTestId('decision-settings-stamp').count()).toBe(0);
    const store = (await alice.services.stores.list({})).find((s) => s.id === 'demo');
    await section.getByLabel('Settings of').selectOption({ label: store?.name ?? '' });
    await expect.poll(() => section.getByLabel('Minimum runtime').inputValue()).toBe('14');
    await expect
      .poll(() => section.getByTestId('decision-settings-stamp').textContent())
      .toContain('set by bob, ');
    await screenshotsAtEverySize(page, SHOTS, 'settings-stamp', () =>
      section.scrollIntoViewIfNeeded(),
    );
    expect(window.pageErrors).toEqual([]);
  });
});
