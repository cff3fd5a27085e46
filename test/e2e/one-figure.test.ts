// One figure per fact (issue 44): a test's current lift and interval, its call and, for a call made at a
// look, its labelled "at the call" figures read the same from every surface — the list, the Results tab,
// the Decisions view, `decisions --json`, the tests CSV, `report --format text` and the HTML report —
// over a real core syncing the simulator over HTTP, the window in Chromium through the browser host and
// the CLI as a child process on the same data folder.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestFilter, type DecisionRow } from '#shared/contract/index';
import type { Decision } from '#shared/domain/decisions/schemas';
import type { Core } from '#core/types';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, syncStore, testSecrets, tempDir } from '../support/core';
import { runTsx } from '../hosts/support/spawn';
import { parseCsv } from '../reports/support';

const data = tempDir('splitbook-e2e-one-figure-');
const simulator = createSimulator({ seed: 27, stores: [{ name: 'Northwind Apparel', tests: 60 }] });
let served: ServedSimulator;
let core: Core;
let win: RendererWindow | undefined;
let page: Page;
let storeId: string;
const picks: { row: DecisionRow; decision: Decision }[] = [];

/** Every percent in a text, as a number of percent to one decimal ("−2.8%" → −2.8). */
function percents(text: string | null | undefined): number[] {
  // A level ("95% interval", "95% sequential interval") is a name, not a figure.
  const figures = (text ?? '').replace(/\b\d+(?:[.,]\d+)?% (?:sequential |credible )?interval/g, 'interval');
  return [...figures.matchAll(/([+\-−]?)(\d+(?:[.,]\d+)?)\s?%/g)].map((m) => {
    const value = Number((m[2] ?? '0').replace(',', '.'));
    return m[1] === '-' || m[1] === '−' ? -value : value;
  });
}

/** A fraction as the surfaces round it: percent to one decimal. */
const shown = (fraction: number) => Number((fraction * 100).toFixed(1));

beforeAll(async () => {
  served = await serveSimulator(simulator);
  core = await startCore(data.path, { host: 'browser', secrets: testSecrets(), clock: () => simulator.now() });
  storeId = (
    await core.services.stores.add({
      name: 'Northwind Apparel',
      baseUrl: served.url,
      apiKey: simulator.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    })
  ).id;
  const report = await syncStore(core, storeId);
  if (report.outcome !== 'ok') throw new Error(`the sync ended ${report.outcome}`);
  const list = await core.services.decisions.list({ storeId });
  const withLift = async (row: DecisionRow) => {
    const { decision } = await core.services.tests.get({ storeId, testId: row.testId });
    return decision?.goal?.lift != null && decision.goal.liftLow !== null ? { row, decision } : null;
  };
  // A call made at a look (its figures frozen there) and a test still running.
  for (const wanted of [['ship', 'keep_control', 'no_difference'], ['keep_running']]) {
    for (const row of list.rows.filter((r) => wanted.includes(r.call))) {
      const pick = await withLift(row);
      if (pick !== null) {
        picks.push(pick);
        break;
      }
    }
  }
  if (picks.length < 2) throw new Error('the simulated store gave no settled and running test with figures');
  win = await openRenderer(core);
  page = win.page;
  await page.locator('.store .main').first().waitFor();
}, 180_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close();
  data.remove();
});

describe('one figure per fact, on every surface', () => {
  it('the tests CSV and decisions --json carry the call and the current lift as the core made them', async () => {
    const file = join(data.path, 'tests.csv');
    await core.reports.writeFile({ report: 'tests', format: 'csv', bom: true, filter: TestFilter.parse({ storeId }), testId: null }, file);
    const records = parseCsv(readFileSync(file, 'utf8'));
    const cli = await runTsx('src/main/hosts/cli/main.ts', ['--data-dir', data.path, 'decisions', '--store', storeId, '--json'], {});
    expect(cli.code, cli.stderr).toBe(0);
    const json = JSON.parse(cli.stdout) as DecisionRow[];
    for (const { row, decision } of picks) {
      const record = records.find((r) => r['test_id'] === row.testId);
      expect(record?.['decision']).toBe(decision.call);
      expect(Number(record?.['goal_lift'])).toBeCloseTo(decision.goal?.lift ?? NaN, 12);
      const listed = json.find((r) => r.testId === row.testId);
      expect(listed?.call).toBe(decision.call);
      expect(listed?.goalLift).toBe(decision.goal?.lift);
      expect(listed?.words).toBe(decision.words);
    }
  }, 60_000);

  it('report --format text leads with the lift now and its interval, the figures at the call labelled', async () => {
    const text = (await core.reports.client({ storeId, testId: null, since: '2000-01-01', until: '2100-01-01' }, 'text')).content;
    for (const { row, decision } of picks) {
      const line = text.split('\n').find((l) => l.includes(row.title));
      if (line === undefined) continue; // the summary keeps six bullets
      const goal = decision.goal;
      if (goal === null || goal.lift === null || goal.liftLow === null || goal.liftHigh === null) continue;
      expect(percents(line).slice(0, 3)).toEqual([shown(goal.lift), shown(goal.liftLow), shown(goal.liftHigh)]);
      if (decision.call !== 'keep_running' && decision.look !== null) {
        expect(line).toMatch(new RegExp(`at the call, day ${decision.look.day} \\(`));
      }
    }
  }, 60_000);

  it("the HTML report's card shows the goal's lift now and its interval", async () => {
    const path = join(data.path, 'report.html');
    await core.reports.client({ storeId, testId: null, since: '2000-01-01', until: '2100-01-01' }, 'html', path);
    await page.goto(`file://${path}`);
    for (const { row, decision } of picks) {
      const goalRow = page.locator(`[data-test-id="${row.testId}"] tr.role-goal td.num`).first();
      const numbers = percents(await goalRow.textContent());
      const goal = decision.goal;
      if (goal === null || goal.lift === null || goal.liftLow === null || goal.liftHigh === null) continue;
      expect(numbers.slice(0, 3)).toEqual([shown(goal.lift), shown(goal.liftLow), shown(goal.liftHigh)]);
    }
    await page.goto(win?.host.url ?? '');
    await page.locator('.store .main').first().waitFor();
  }, 60_000);

  it('the list, the Decisions view and the Results tab show the same lift; the Results tab labels the figures at the call', async () => {
    for (const { row, decision } of picks) {
      const goal = decision.goal;
      if (goal === null || goal.lift === null || goal.liftLow === null || goal.liftHigh === null) continue;
      // The list: the test's row, its Lift cell.
      await page.getByRole('navigation', { name: 'Stores and views' }).getByRole('button', { name: /^Tests/ }).click();
      await page.getByTestId('search').fill(row.title);
      const gridRow = page.locator('[data-testid="test-grid"] .viewport [role="row"]').filter({ hasText: row.title }).first();
      await gridRow.waitFor();
      expect(percents(await gridRow.locator('.c-lift').textContent())).toEqual([shown(goal.lift)]);
      await page.getByTestId('search').fill('');
      // The Decisions view: a settled call's line shows the lift now; its sentence, the figures at the call.
      await page.getByRole('navigation', { name: 'Stores and views' }).getByRole('button', { name: /^Decisions/ }).click();
      const line = page.locator(`[data-testid="decision-row"][data-test-id="${row.testId}"]`);
      await line.waitFor();
      if (decision.call !== 'keep_running') {
        expect(percents(await line.locator('.figure').textContent())).toEqual([shown(goal.lift)]);
        expect(await line.locator('.reason').textContent()).toContain(`At the call, day ${decision.look?.day} (`);
      }
      // The Results tab: the lift now with its interval, and the figures at the call under their label.
      await line.click();
      await page.keyboard.press('Enter');
      const now = page.getByTestId('decision-lift-now');
      await now.waitFor();
      expect(percents(await now.textContent()).slice(0, 3)).toEqual([shown(goal.lift), shown(goal.liftLow), shown(goal.liftHigh)]);
      if (decision.call !== 'keep_running' && decision.look !== null) {
        const atCall = await page.getByTestId('decision-at-call').textContent();
        expect(atCall).toMatch(new RegExp(`^day ${decision.look.day} \\(`));
        expect(percents(atCall)[0]).toBe(shown(decision.look.adjustedLift ?? decision.look.lift));
      }
      // The interval bar of the goal is the same figure.
      const bars = page.getByTestId('interval-bars');
      if ((await bars.count()) > 0) expect(percents(await bars.textContent())).toContain(shown(goal.lift));
    }
    expect(win?.pageErrors).toEqual([]);
  }, 120_000);
});
