// The programme in the window, end to end in Chromium through the browser host, over a real core that
// synced two simulated stores over HTTP: the Backlog ranks ideas as `programme.backlog` does (by each
// score, with its filters), is driven by the keyboard, and an impact edited in place offline shows as not
// yet sent and moves the idea; the Learnings figures are `programme.learnings`' own, and a takeaway saved
// in place is there after a reload. Both views hold at 900×560 and 1440×900 in both themes: no text cell
// spills or is cut without a tooltip, axe passes, and the page reports no error. Screenshots go to
// test-results/programme/.
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backlog, BacklogInput, Learnings } from '#shared/contract/index';
import type { Core } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { SCREEN_SIZES, screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, syncStore, tempDir, testSecrets } from '../support/core';

const SHOTS = resolve('test-results/programme');
const AXE = resolve('node_modules/axe-core/axe.min.js');
const STORES = [
  { name: 'Northwind Apparel', tests: 80 },
  { name: 'Lumen Home', tests: 50 },
] as const;
const MINUS = '\u2212';

const data = tempDir('splitbook-e2e-programme-');
let simulator: Simulator;
let served: ServedSimulator;
let core: Core;
let win: RendererWindow | undefined;
let page: Page;

const normalise = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

function backlogOf(input: Partial<BacklogInput> = {}): Promise<Backlog> {
  return core.services.programme.backlog({
    storeId: null,
    score: 'impact-per-effort',
    tag: null,
    surfaceArea: null,
    goal: null,
    ...input,
  });
}

function rows() {
  return page.getByTestId('backlog-row');
}

async function drawnIds(): Promise<string[]> {
  return rows().evaluateAll((els) => els.map((el) => el.getAttribute('data-test-id') ?? ''));
}

async function view(label: string) {
  await page
    .getByRole('navigation', { name: 'Stores and views' })
    .getByRole('button', { name: new RegExp(`^${label}`) })
    .click();
}

/** As the window writes a lift (a fraction): "+26.3%", "−13.8%", "—". */
function lift(value: number | null): string {
  if (value === null) return '—';
  const rounded = Number((value * 100).toFixed(1));
  const text = Math.abs(rounded).toFixed(1);
  return rounded > 0 ? `+${text}%` : rounded < 0 ? `${MINUS}${text}%` : `${text}%`;
}

function rate(value: number | null): string {
  return value === null ? '—' : `${Math.round(value * 100)}%`;
}

// Browser-side checks as strings (this file is type-checked without the DOM library), as layout.test.ts
// makes them: a text cell that spills, or is cut by an ellipsis with no tooltip to read it whole.
const OVERFLOWS = `(() => {
  const found = [];
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
  const cells = document.querySelectorAll('td, th, [role="gridcell"], [role="columnheader"], .card > span, figcaption > span, .status-bar > *, .pane-header > *, .chips button, .tabs [role="tab"]');
  for (const el of cells) {
    if (!visible(el) || el.closest('[aria-hidden="true"]')) continue;
    const style = getComputedStyle(el);
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    if (style.overflowX === 'auto' || style.overflowX === 'scroll') continue;
    const text = (el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
    if (style.textOverflow !== 'ellipsis' && !el.querySelector('*[style*="ellipsis"]')) {
      const kids = [...el.children].filter(visible);
      const spill = kids.some((k) => k.getBoundingClientRect().right > el.getBoundingClientRect().right + 1 && getComputedStyle(k).textOverflow !== 'ellipsis');
      if (spill || kids.length === 0 || style.overflow === 'visible') found.push('spills: ' + text);
      continue;
    }
    if (!el.closest('[title]') && !el.querySelector('[title]')) found.push('cut without tooltip: ' + text);
  }
  if (document.documentElement.scrollWidth > innerWidth + 1) found.push('the page scrolls sideways');
  return found;
})()`;

async function axeFindings(): Promise<string[]> {
  if (!(await page.evaluate(`typeof axe !== 'undefined'`)))
    await page.evaluate(readFileSync(AXE, 'utf8'));
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.id === 'region')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')))`)) as string[];
}

/** Overflow and axe findings of the page as it is, at every size and theme, each tagged with where. */
async function auditEverywhere(name: string): Promise<string[]> {
  const findings: string[] = [];
  for (const size of SCREEN_SIZES) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200); // charts draw on the next frame
      const tag = `${name} ${size.width}×${size.height} ${scheme}`;
      const overflows = (await page.evaluate(OVERFLOWS)) as string[];
      findings.push(...overflows.map((f) => `${tag}: ${f}`));
      findings.push(...(await axeFindings()).map((f) => `${tag}: axe ${f}`));
    }
  }
  await page.setViewportSize(SCREEN_SIZES[0]);
  await page.emulateMedia({ colorScheme: 'light' });
  return findings;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  simulator = createSimulator({ seed: 27, stores: [...STORES] });
  served = await serveSimulator(simulator);
  core = await startCore(data.path, {
    host: 'browser',
    secrets: testSecrets(),
    clock: () => simulator.now(),
  });
  for (const [i, store] of STORES.entries()) {
    const { id } = await core.services.stores.add({
      name: store.name,
      baseUrl: served.url,
      apiKey: simulator.stores[i]?.apiKey ?? '',
      sessionOnly: true,
    });
    const report = await syncStore(core, id);
    if (report.outcome !== 'ok')
      throw new Error(`the sync of ${store.name} ended ${report.outcome}`);
  }
  win = await openRenderer(core, { consoleErrors: true });
  page = win.page;
  await page.locator('.store .main').first().waitFor();
}, 180_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('the Backlog view', { timeout: 120_000 }, () => {
  it('ranks every idea as the core does, with its score, days and the scale note', async () => {
    const backlog = await backlogOf();
    expect(backlog.rows.length).toBeGreaterThan(10);

    const nav = page.getByRole('navigation', { name: 'Stores and views' });
    const labels = await nav
      .getByRole('list', { name: 'Views' })
      .getByRole('button')
      .allTextContents();
    expect(normalise(labels[1] ?? '')).toMatch(/^Backlog/);
    await view('Backlog');
    await page.getByRole('heading', { level: 1, name: /Backlog/ }).waitFor();
    await expect.poll(() => rows().count()).toBe(backlog.rows.length);
    expect(await drawnIds()).toEqual(backlog.rows.map((r) => r.testId));
    expect(await page.getByTestId('backlog-count').textContent()).toContain(
      `${backlog.total} ideas`,
    );
    expect(normalise(await page.getByTestId('backlog-note').textContent())).toBe(backlog.note);
    expect(await page.getByTestId('backlog-score').inputValue()).toBe(backlog.score);

    const drawn = await rows().evaluateAll((els) =>
      els.map((el) => ({
        rank: el.getAttribute('data-rank'),
        title: el.querySelector('[data-testid="cell-title"]')?.getAttribute('title') ?? '',
        days: el.querySelector('[data-testid="cell-days"]')?.getAttribute('title') ?? '',
        score: (el.querySelector('[data-testid="cell-score"]')?.textContent ?? '').replace(
          /^Score/,
          '',
        ),
        impact: el.querySelector('[data-testid="cell-impact"] .value')?.textContent ?? '',
      })),
    );
    for (const [i, row] of backlog.rows.entries()) {
      const shown = drawn[i];
      expect(shown?.rank).toBe(String(row.rank));
      expect(shown?.title).toBe(row.title);
      expect(shown?.days).toBe(row.plannerText);
      expect(shown?.impact).toBe(row.impact === null ? '—' : String(row.impact));
      if (row.score === null) expect(shown?.score.trim()).toBe('—');
      else expect(Number(shown?.score.trim())).toBeCloseTo(row.score, 2);
    }
    await screenshotsAtEverySize(page, SHOTS, 'backlog');
  });

  it('ranks by the score chosen and keeps only the ideas of a tag', async () => {
    await page.getByTestId('backlog-score').selectOption('impact');
    const byImpact = await backlogOf({ score: 'impact' });
    await expect.poll(drawnIds).toEqual(byImpact.rows.map((r) => r.testId));
    expect(normalise(await page.getByTestId('backlog-note').getAttribute('title'))).toContain(
      `Ranked by ${byImpact.words}`,
    );

    const tag = byImpact.facets.tags[0];
    if (!tag) throw new Error('no idea has a tag');
    await page.getByRole('combobox', { name: 'Tag' }).selectOption(tag.key);
    const tagged = await backlogOf({ score: 'impact', tag: tag.key });
    expect(tagged.rows.length).toBe(tag.count);
    await expect.poll(drawnIds).toEqual(tagged.rows.map((r) => r.testId));
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByTestId('backlog-score').selectOption('impact-per-effort');
    await expect.poll(drawnIds).toEqual((await backlogOf()).rows.map((r) => r.testId));
  });

  it('moves with j/k, opens the test with Enter, and comes back with Esc', async () => {
    const backlog = await backlogOf();
    await page.getByTestId('cell-title').first().click();
    await page.keyboard.press('j');
    await expect.poll(() => rows().nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect.poll(() => rows().nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('detail-title').textContent())
      .toBe(backlog.rows[1]?.title);
    await expect
      .poll(() => page.evaluate(`document.activeElement?.getAttribute('data-testid')`))
      .toBe('detail-title');
    await page.keyboard.press('Escape');
    await expect
      .poll(() =>
        page.evaluate(
          `document.activeElement?.closest('[data-testid="backlog-row"]')?.getAttribute('data-test-id')`,
        ),
      )
      .toBe(backlog.rows[1]?.testId);
  });

  it('edits an impact in place offline: marked not yet sent, the idea moves up, Esc cancels', async () => {
    const before = await backlogOf();
    // The lowest-ranked idea with an effort: a large enough impact puts it first.
    const target = [...before.rows].reverse().find((r) => r.effort !== null && r.effort > 0);
    const top = before.rows[0];
    if (!target || !top || top.score === null || target.effort === null)
      throw new Error('no idea to move');
    const impact = Math.ceil(top.score * target.effort) + 10;
    await served.setOffline(true);
    try {
      const row = page.locator(`[data-testid="backlog-row"][data-test-id="${target.testId}"]`);
      // Esc leaves the field as it was.
      await row.getByTestId('cell-effort').click();
      await page.keyboard.press('Enter');
      await row.getByTestId('edit-effort').fill('7');
      await page.keyboard.press('Escape');
      await expect.poll(() => row.getByTestId('edit-effort').count()).toBe(0);
      expect(await row.locator('[data-testid="cell-effort"] .value').textContent()).toBe(
        String(target.effort),
      );

      // Enter edits, Enter saves.
      await row.getByTestId('cell-impact').click();
      await page.keyboard.press('Enter');
      await row.getByTestId('edit-impact').fill(String(impact));
      await page.keyboard.press('Enter');
      await expect
        .poll(() => row.locator('[data-testid="cell-impact"] .value').textContent())
        .toBe(String(impact));
      await row.getByTestId('pending-impact').waitFor();
      expect(await row.getByTestId('pending-effort').count()).toBe(0);
      const after = await backlogOf();
      expect(after.rows[0]?.testId).toBe(target.testId);
      expect(after.rows[0]?.pendingFields).toContain('impact');
      await expect.poll(drawnIds).toEqual(after.rows.map((r) => r.testId));
      expect(await row.getAttribute('data-rank')).toBe('1');
      expect(await row.getByTestId('cell-impact').getAttribute('title')).toMatch(
        /not yet sent to the store/,
      );
      // The focus stays on the field edited, wherever its idea went.
      await expect
        .poll(() => page.evaluate(`document.activeElement?.getAttribute('data-testid')`))
        .toBe('cell-impact');
      await screenshotsAtEverySize(page, SHOTS, 'backlog-pending');
    } finally {
      await served.setOffline(false);
    }
  });

  it('holds at both sizes and themes: no cell spills or is cut without a tooltip, axe passes', async () => {
    await page.getByTestId('cell-title').first().click();
    expect(await auditEverywhere('backlog')).toEqual([]);
  });
});

describe('the Learnings view', { timeout: 120_000 }, () => {
  let all: Learnings;

  it("shows the core's figures for the last 90 days by default, and for all time", async () => {
    await view('Learnings');
    await page.getByRole('heading', { level: 1, name: /Learnings/ }).waitFor();
    const since = await page.getByTestId('learnings-since').inputValue();
    const until = await page.getByTestId('learnings-until').inputValue();
    expect(Date.parse(until) - Date.parse(since)).toBe(89 * 86_400_000);
    expect(await page.getByTestId('period-90d').getAttribute('aria-pressed')).toBe('true');
    const recent = await core.services.programme.learnings({ storeId: null, since, until });
    if (recent.figures.concluded === 0) {
      await page.getByTestId('empty-state').waitFor();
    } else {
      await expect.poll(() => page.getByTestId('concluded-test').count()).toBe(recent.tests.length);
    }

    await page.getByTestId('period-all').click();
    all = await core.services.programme.learnings({ storeId: null, since: null, until: null });
    expect(all.figures.concluded).toBeGreaterThan(3);
    const figures = page.getByTestId('learnings-figures');
    await expect
      .poll(() => figures.locator('[data-figure="concluded"] dd.num').textContent())
      .toBe(String(all.figures.concluded));
    const f = all.figures;
    const read = (name: string) =>
      figures.locator(`[data-figure="${name}"] dd.num`).textContent().then(normalise);
    expect(await read('win-rate')).toBe(rate(f.winRate));
    expect(await read('no-difference-rate')).toBe(rate(f.noDifferenceRate));
    expect(await read('winner-lift')).toBe(lift(f.medianWinnerLift));
    expect(await read('loser-lift')).toBe(lift(f.medianLoserLift));
    expect(await read('days')).toBe(
      f.medianDaysToDecision === null ? '—' : String(Math.round(f.medianDaysToDecision)),
    );
    const sub = normalise(await figures.locator('[data-figure="concluded"] .sub').textContent());
    expect(sub).toBe(
      `▲ ${f.ship} recommended to ship · ▼ ${f.keepControl} to keep the control · = ${f.noDifference} no difference`,
    );

    // Per store, by tag, surface area and goal, the concluded tests (latest first) and the winners.
    const perStore = page.getByTestId('learnings-stores').locator('tbody tr');
    expect(await perStore.count()).toBe(all.stores.length);
    for (const [i, s] of all.stores.entries()) {
      const cells = (await perStore.nth(i).locator('th, td').allTextContents()).map(normalise);
      expect(cells.slice(0, 6)).toEqual([
        s.storeName,
        String(s.figures.concluded),
        String(s.figures.ship),
        String(s.figures.keepControl),
        String(s.figures.noDifference),
        rate(s.figures.winRate),
      ]);
    }
    for (const [id, breakdown] of [
      ['by-tag', f.byTag],
      ['by-surface-area', f.bySurfaceArea],
      ['by-goal', f.byGoal],
    ] as const) {
      const body = page.getByTestId(id).locator('tbody tr');
      expect(await body.count(), id).toBe(breakdown.length);
      for (const [i, row] of breakdown.entries()) {
        const cells = (await body.nth(i).locator('td').allTextContents()).map(normalise);
        expect(cells, `${id} ${row.key}`).toEqual([
          String(row.concluded),
          String(row.wins),
          String(row.losses),
          String(row.flat),
          rate(row.winRate),
          lift(row.medianLift),
        ]);
      }
    }
    expect(
      await page
        .getByTestId('concluded-test')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-test-id'))),
    ).toEqual(all.tests.map((t) => t.testId));
    expect(
      await page
        .getByTestId('impact-row')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-test-id'))),
    ).toEqual(all.impact.map((t) => t.testId));
    const impact = normalise(await page.getByTestId('impact').textContent());
    expect(impact).toContain('estimate');
    for (const row of all.impact) expect(impact).toContain(row.assumptions);
    expect(await page.getByTestId('chart-per-month').locator('canvas').count()).toBe(1);
    expect(await page.getByTestId('chart-lifts').locator('canvas').count()).toBe(1);
    await screenshotsAtEverySize(page, SHOTS, 'learnings');
    await screenshotsAtEverySize(page, SHOTS, 'learnings-tests', async () => {
      await page.getByTestId('concluded-tests').scrollIntoViewIfNeeded();
    });
  });

  it('saves a takeaway in place, and shows it after a reload', async () => {
    const first = all.tests[0];
    if (!first) throw new Error('nothing concluded');
    const item = page.locator(`[data-testid="concluded-test"][data-test-id="${first.testId}"]`);
    const text = 'Shoppers trust a free-shipping promise more than a discount';
    await item.getByTestId('takeaway-text').click();
    await item.getByTestId('takeaway-input').fill(text);
    await page.keyboard.press('Enter');
    await expect
      .poll(() => item.getByTestId('takeaway-text').textContent().then(normalise))
      .toBe(text);
    const saved = await core.services.programme.learnings({
      storeId: null,
      since: null,
      until: null,
    });
    expect(saved.tests.find((t) => t.testId === first.testId)?.takeaway).toBe(text);

    // Esc leaves it as it was.
    await item.getByTestId('takeaway-text').click();
    await item.getByTestId('takeaway-input').fill('Not this');
    await page.keyboard.press('Escape');
    expect(normalise(await item.getByTestId('takeaway-text').textContent())).toBe(text);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: /Learnings/ }).waitFor();
    await page.getByTestId('period-all').click();
    await expect
      .poll(() =>
        page
          .locator(`[data-testid="concluded-test"][data-test-id="${first.testId}"]`)
          .getByTestId('takeaway-text')
          .textContent()
          .then(normalise),
      )
      .toBe(text);
  });

  it('holds at both sizes and themes: no cell spills or is cut without a tooltip, axe passes', async () => {
    expect(await auditEverywhere('learnings')).toEqual([]);
    await page.getByTestId('impact').scrollIntoViewIfNeeded();
    expect(await auditEverywhere('learnings, scrolled')).toEqual([]);
  });

  it('ends with no page errors', () => {
    expect(win?.pageErrors ?? []).toEqual([]);
  });
});
