// The test's own views on the team layer, in Chromium through the browser host: two windows (two data folders, two real cores) on the project's team server; a note typed in one appears in the other's open test within a second, comments, owner and sign-off from the detail, and a CLI note beside a running window.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { runTsx } from '../hosts/support/spawn';
import { screenshotsAtEverySize } from '../support/chromium';
import { allTestRows, startCore, syncStore } from '../support/core';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const root = tempDir('team-views-window');
const SHOTS = path.join(root, 'shots');
let server: RunningServer;
let alice: Core;
let bob: Core;
let aliceWin: RendererWindow;
let bobWin: RendererWindow;
let test = { id: '', title: '' };

async function openTest(page: Page) {
  await page
    .getByRole('button', { name: /^Tests/ })
    .first()
    .click();
  await page.getByTestId('search').fill(test.title);
  await page
    .locator('[data-testid="test-grid"] .viewport [role="row"]')
    .filter({ hasText: test.title })
    .first()
    .click();
  await page.getByTestId('detail-title').filter({ hasText: test.title }).waitFor();
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
  // A title no other test has (and no other contains): the search finds exactly this test.
  const rows = await allTestRows(alice, 'demo');
  const row =
    rows.find(
      (r) =>
        r.decision !== null &&
        rows.filter((o) => o.title.toLowerCase().includes(r.title.toLowerCase())).length === 1,
    ) ?? null;
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

describe("a shared store's test in two windows", () => {
  it("shows a note typed in one window in the other's open test within a second, with its author", async () => {
    const a = aliceWin.page;
    const b = bobWin.page;
    await openTest(a);
    await openTest(b);
    await a.getByTestId('note').fill('Alice: check the mobile split first.');
    await expect.poll(() => a.getByTestId('note-state').textContent()).toMatch(/Saved/);
    const saved = Date.now();
    await expect
      .poll(() => b.getByTestId('note').inputValue(), { timeout: 5_000, interval: 25 })
      .toBe('Alice: check the mobile split first.');
    const took = Date.now() - saved;
    expect(took).toBeLessThan(1000);
    await expect.poll(() => b.getByTestId('note-authors').textContent()).toContain('alice');
  });

  it('adds a comment, edits and deletes your own, sets the owner and approves the call', async () => {
    const a = aliceWin.page;
    const b = bobWin.page;
    await a.getByTestId('comment-input').fill('Segment by device before we ship?');
    await a.getByTestId('comment-add').click();
    await expect.poll(() => b.getByTestId('comment').count(), { timeout: 5_000 }).toBe(1);
    expect(await b.getByTestId('comment').first().textContent()).toContain('alice');
    // Only the author may edit or delete: bob sees no Edit on alice's comment.
    expect(await b.getByTestId('comment').getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await a.getByTestId('comment').getByRole('button', { name: 'Edit' }).click();
    await a.getByRole('textbox', { name: 'Edit your comment' }).fill('Segment by device first.');
    await a.getByTestId('comment').getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => b.getByTestId('comment').first().textContent(), { timeout: 5_000 })
      .toContain('Segment by device first.');

    await b.getByTestId('owner-me').click();
    await expect
      .poll(() => a.getByTestId('team-owner').textContent(), { timeout: 5_000 })
      .toBe('bob');
    expect(await a.getByTestId('team-owner').getAttribute('title')).toMatch(/^Set by bob on /);
    // The Owner column, turned on from the column menu: who and when on hover.
    await a.getByTestId('columns-button').click();
    await a
      .getByRole('menu', { name: /Columns of the list/ })
      .getByRole('menuitemcheckbox', { name: /Owner/ })
      .click();
    await a.keyboard.press('Escape');
    const cell = a
      .locator('[data-testid="test-grid"] .viewport [role="row"]')
      .filter({ hasText: test.title })
      .first()
      .getByTestId('owner-cell');
    await expect.poll(() => cell.textContent(), { timeout: 5_000 }).toContain('bob');
    expect(await cell.getAttribute('title')).toMatch(/^Set by bob on /);
    await screenshotsAtEverySize(a, SHOTS, 'team-owner-column');

    expect(await b.getByTestId('signoff-state').textContent()).toBe('Not yet approved.');
    expect(await b.getByTestId('signoff-call').textContent()).toMatch(/^Approve the call: /);
    // Alice proposes the call from her window; bob sees who proposed it, then approves it.
    await a.getByTestId('signoff-propose').click();
    await expect
      .poll(() => b.getByTestId('signoff-state').textContent(), { timeout: 5_000 })
      .toMatch(/^Proposed by alice/);
    expect(await a.getByTestId('signoff-propose').count()).toBe(0);
    await b.getByTestId('signoff-approve').click();
    await expect
      .poll(() => a.getByTestId('signoff-state').textContent(), { timeout: 5_000 })
      .toMatch(/^Approved by bob on .+: /);
    expect(
      (await alice.services.team.signOffState({ storeId: 'demo', testId: test.id })).approvedBy,
    ).toBe('bob');

    await a.getByTestId('comment').scrollIntoViewIfNeeded();
    await screenshotsAtEverySize(a, SHOTS, 'team-detail', () =>
      a.getByTestId('team-panel').scrollIntoViewIfNeeded(),
    );

    await a.getByTestId('comment').getByRole('button', { name: 'Delete' }).click();
    await expect
      .poll(() => b.getByTestId('comment-deleted').textContent(), { timeout: 5_000 })
      .toMatch(/^Deleted by alice on /);
    expect(aliceWin.pageErrors).toEqual([]);
    expect(bobWin.pageErrors).toEqual([]);
  });

  it('narrows the list to the tests I own with "Mine", and back', async () => {
    const b = bobWin.page;
    const rows = b.locator('[data-testid="test-grid"] .viewport [role="row"]');
    // The search that opened the test goes first: the whole store's list.
    await b.getByTestId('search').fill('');
    await expect.poll(() => rows.count(), { timeout: 5_000 }).toBeGreaterThan(1);
    // Bob owns the test since the step above: "Mine" shows it alone.
    await b.getByTestId('mine-chip').click();
    expect(await b.getByTestId('mine-chip').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => rows.count(), { timeout: 5_000 }).toBe(1);
    expect(await rows.first().textContent()).toContain(test.title);
    await screenshotsAtEverySize(b, SHOTS, 'team-mine');
    await b.getByTestId('mine-chip').click();
    await expect.poll(() => rows.count(), { timeout: 5_000 }).toBeGreaterThan(1);
    expect(bobWin.pageErrors).toEqual([]);
  });

  it("badges a test with a colleague's new comment once, and clears the badge when it is opened", async () => {
    const b = bobWin.page;
    const rows = b.locator('[data-testid="test-grid"] .viewport [role="row"]');
    await b.getByTestId('search').fill('');
    await expect.poll(() => rows.count(), { timeout: 5_000 }).toBeGreaterThan(2);
    // A row in view that is not the open test, with a title of its own.
    const all = await allTestRows(alice, 'demo');
    const titles = await rows.locator('.title').allTextContents();
    const other = all.find(
      (r) =>
        r.id !== test.id &&
        titles.slice(0, 8).includes(r.title) &&
        all.filter((o) => o.title === r.title).length === 1,
    );
    if (!other) throw new Error('no other test in view');
    await alice.services.team.addComment({ storeId: 'demo', testId: other.id, text: 'Look here.' });
    const row = rows.filter({ hasText: other.title }).first();
    await expect.poll(() => row.getByTestId('comment-badge').count(), { timeout: 5_000 }).toBe(1);
    expect(await row.getByTestId('comment-badge').textContent()).toBe('1 new');
    expect(await b.getByTestId('comment-badge').count()).toBe(1);
    await screenshotsAtEverySize(b, SHOTS, 'team-comment-badge');
    // Opening the test shows its thread: the comment is no longer new.
    await row.click();
    await b.getByTestId('detail-title').filter({ hasText: other.title }).waitFor();
    await expect.poll(() => b.getByTestId('comment-badge').count(), { timeout: 5_000 }).toBe(0);
    expect(
      (await bob.services.team.commentNews({ storeId: 'demo' })).find((n) => n.testId === other.id),
    ).toBeUndefined();
    expect(bobWin.pageErrors).toEqual([]);
    // Back to the test the next step reads.
    await openTest(b);
  });

  it('shows a note the CLI writes beside the running window, without a restart', async () => {
    const run = await runTsx('src/main/hosts/cli/main.ts', [
      '--data-dir',
      path.join(root, 'bob'),
      'note',
      '--store',
      'demo',
      '--test',
      test.id,
      '--set',
      'Bob, from the CLI.',
    ]);
    expect(run.code, run.stderr).toBe(0);
    await expect
      .poll(() => bobWin.page.getByTestId('note').inputValue(), { timeout: 5_000 })
      .toBe('Bob, from the CLI.');
    await expect
      .poll(() => aliceWin.page.getByTestId('note').inputValue(), { timeout: 10_000 })
      .toBe('Bob, from the CLI.');
  });
});
