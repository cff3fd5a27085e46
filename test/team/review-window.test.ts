// The Changes view's team section in Chromium through the browser host: two windows (two data folders, two real cores) on the project's team server; a colleague's note, comment and sign-off appear live in a section of their own naming who and when, a line opens its test on click and on Enter, "Mark reviewed" empties it and the colleague sees who reviewed the store; a store not shared shows no section.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { screenshotsAtEverySize } from '../support/chromium';
import { allTestRows, startCore, syncStore } from '../support/core';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const root = tempDir('team-review-window');
const SHOTS = path.join(root, 'shots');
let server: RunningServer;
let alice: Core;
let bob: Core;
let aliceWin: RendererWindow;
let bobWin: RendererWindow;
let test = { id: '', title: '' };

async function view(page: Page, label: string) {
  await page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: new RegExp(`^${label}`) })
    .click();
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const tokens = {
    alice: addMember(path.join(root, 'server'), 'alice', 'all'),
    bob: addMember(path.join(root, 'server'), 'bob', 'all'),
  };
  server = await startServer(path.join(root, 'server'));
  alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
  bob = await startCore(path.join(root, 'bob'), { host: 'browser' });
  for (const core of [alice, bob]) {
    await core.services.stores.openDemo({});
    await syncStore(core, 'demo');
  }
  await alice.services.team.join({ url: server.url, token: tokens.alice });
  await bob.services.team.join({ url: server.url, token: tokens.bob });
  const { teamStoreId } = await alice.services.team.share({ storeId: 'demo' });
  await bob.services.team.link({ storeId: 'demo', teamStoreId });
  await bob.services.review.markReviewed({ storeId: 'demo' });
  const row = (await allTestRows(alice, 'demo')).find((r) => r.decision !== null);
  if (!row) throw new Error('the demo store has no test with a call');
  test = { id: row.id, title: row.title };
  aliceWin = await openRenderer(alice);
  bobWin = await openRenderer(bob);
});

afterAll(async () => {
  await aliceWin?.close();
  await bobWin?.close();
  await alice?.close();
  await bob?.close();
  await server?.stop();
  if (!process.env['SPLITBOOK_KEEP_SHOTS']) removeDir(root);
});

describe("the Changes view's team section", () => {
  it("lists a colleague's note, comment and sign-off live, each naming who and when", async () => {
    const b = bobWin.page;
    await view(b, 'Changes');
    await b.getByRole('heading', { level: 1, name: 'Changes' }).waitFor();
    await b.getByTestId('team-changes').waitFor();
    expect(await b.getByTestId('team-change-line').count()).toBe(0);
    expect(await b.getByTestId('team-changes').textContent()).toContain(
      'Nobody else changed anything in',
    );

    const ref = { storeId: 'demo', testId: test.id };
    await alice.services.team.setNote({ ...ref, text: 'Check mobile first.', append: false });
    await alice.services.team.addComment({ ...ref, text: 'Ship on Monday?' });
    await alice.services.team.signOff(ref);

    const lines = b.getByTestId('team-change-line');
    await expect.poll(() => lines.count(), { timeout: 10_000 }).toBe(3);
    const texts = await lines.allTextContents();
    expect(texts.every((t) => t.includes(test.title))).toBe(true);
    expect(texts.some((t) => t.includes('alice edited the note'))).toBe(true);
    expect(texts.some((t) => t.includes('alice commented: “Ship on Monday?”'))).toBe(true);
    expect(texts.some((t) => /alice approved the call “.+”/.test(t))).toBe(true);
    // Each line says when, as a <time> with its exact instant.
    expect(await lines.locator('time').count()).toBe(3);
    expect(await b.getByTestId('team-changes').textContent()).toMatch(
      /Team changes since your review\s*\(3\)/,
    );
    await screenshotsAtEverySize(b, SHOTS, 'team-changes');
  });

  it('opens the test from a line on click and on Enter', async () => {
    const b = bobWin.page;
    const first = b.getByTestId('team-change-line').first();
    await first.click();
    await b.getByTestId('detail-title').filter({ hasText: test.title }).waitFor();
    // Back to the list, then the keyboard: focus a line and press Enter.
    await b.keyboard.press('Escape');
    await view(b, 'Changes');
    const last = b.getByTestId('team-change-line').last();
    await last.focus();
    await b.keyboard.press('Enter');
    await b.getByTestId('detail-title').filter({ hasText: test.title }).waitFor();
  });

  it('empties once the store is marked reviewed; the colleague sees who reviewed it and when', async () => {
    const b = bobWin.page;
    const a = aliceWin.page;
    await view(b, 'Changes');
    await b.getByTestId('mark-reviewed').first().click();
    await expect.poll(() => b.getByTestId('team-change-line').count(), { timeout: 10_000 }).toBe(0);
    expect(await b.getByTestId('team-changes').textContent()).toContain(
      'Nobody else changed anything in',
    );

    await view(a, 'Changes');
    const reviews = a.getByTestId('team-reviews');
    await expect
      .poll(() => reviews.textContent(), { timeout: 10_000 })
      .toMatch(/^\s*Reviewed by\s+bob/);
    const at = (await alice.services.team.changes({ storeId: 'demo' })).stores[0]?.reviews[0]?.at;
    expect(await reviews.locator('time').getAttribute('datetime')).toBe(at);
    // Alice never reviewed: bob's review is listed among the team's changes too.
    expect(await a.getByTestId('team-change-line').allTextContents()).toContainEqual(
      expect.stringContaining('bob reviewed the store'),
    );
    await screenshotsAtEverySize(a, SHOTS, 'team-reviewed-by');
  });

  it("shows a colleague's annotation in the store's annotations live, and a removal in the window reaches the colleague", async () => {
    const b = bobWin.page;
    await b.locator('.store .main', { hasText: 'Demo store' }).click();
    await view(b, 'Changes');
    const editor = b.locator('section.annotations');
    await editor.waitFor();
    expect(await editor.textContent()).toContain('Shared with the team');
    await alice.services.notes.addAnnotation({
      storeId: 'demo',
      day: '2026-11-27',
      label: 'Black Friday',
    });
    await expect.poll(() => editor.textContent(), { timeout: 10_000 }).toContain('Black Friday');
    const line = b
      .getByTestId('team-change-line')
      .filter({ hasText: 'alice added the annotation' });
    await expect.poll(() => line.count(), { timeout: 10_000 }).toBe(1);
    await b.getByRole('button', { name: 'Remove annotation Black Friday' }).click();
    await expect
      .poll(async () => (await alice.services.notes.annotations({ storeId: 'demo' })).length, {
        timeout: 10_000,
      })
      .toBe(0);
  });

  it('shows no team section for a store not shared', async () => {
    const carol = await startCore(path.join(root, 'carol'), { host: 'browser' });
    const win = await openRenderer(carol);
    try {
      await carol.services.stores.openDemo({});
      await syncStore(carol, 'demo');
      const c = win.page;
      await c.reload();
      await view(c, 'Changes');
      await c
        .getByRole('region', { name: /^Changes in / })
        .first()
        .waitFor();
      expect(await c.getByTestId('mark-reviewed').count()).toBe(1);
      expect(await c.getByTestId('team-changes').count()).toBe(0);
      expect(await c.getByTestId('team-reviews').count()).toBe(0);
    } finally {
      await win.close();
      await carol.close();
    }
  });
});
