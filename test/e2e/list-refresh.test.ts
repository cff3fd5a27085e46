// A sync's refreshes reload only the rows on screen: the real renderer in Chromium through the
// browser host, a store of 2,500 tests served by the simulator over HTTP, the list scrolled deep.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { CALL_PATH } from '#shared/http-bridge';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, syncStore, tempDir } from '../support/core';

const STORE = 'Deep Store';
const TESTS = 2500;
const ROW_HEIGHT = 28;

const data = tempDir('splitbook-e2e-refresh-');
let core: Core;
let simulator: Simulator;
let served: ServedSimulator;
let win: RendererWindow | undefined;
let page: Page;
let storeId = '';

/** Every tests.list call the page makes, with when it was made. */
const listCalls: { at: number; limit: number; cursor: string | null }[] = [];

beforeAll(async () => {
  simulator = createSimulator({ seed: 21, stores: [{ name: STORE, tests: TESTS }], rate: null });
  served = await serveSimulator(simulator);
  core = await startCore(data.path, { host: 'browser' });
  const key = simulator.stores.find((s) => s.name === STORE)?.apiKey ?? '';
  storeId = (
    await core.services.stores.add({
      name: STORE,
      baseUrl: served.url,
      apiKey: key,
      sessionOnly: true,
    })
  ).id;
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  win = await openRenderer(core, {
    beforeLoad: (page) => {
      page.on('request', (request) => {
        if (!request.url().includes(`${CALL_PATH}/tests.list`)) return;
        const body = JSON.parse(request.postData() ?? '{}') as {
          limit?: number;
          cursor?: string | null;
        };
        listCalls.push({ at: Date.now(), limit: body.limit ?? 0, cursor: body.cursor ?? null });
      });
    },
  });
  page = win.page;
}, 120_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('the test list during a sync', { timeout: 120_000 }, () => {
  it('reloads the rows on screen, not every row loaded, however deep the list is scrolled', async () => {
    await page.locator('.store .main', { hasText: STORE }).click();
    const viewport = page.locator('[data-testid="test-grid"] .viewport');
    await viewport.waitFor();
    // Scroll down 2,000 rows, a page at a time, so the list loads its pages on the way.
    for (let row = 400; row <= 2000; row += 400) {
      await viewport.evaluate((el, top) => (el.scrollTop = top), row * ROW_HEIGHT);
      // The row at the top of the viewport is loaded (a skeleton row has no id).
      await page.locator(`#test-row-${row}`).waitFor();
    }

    // A slow store (1.2 s an answer, 8 requests under way): the re-sync takes several seconds, so the
    // window refreshes during it.
    simulator.setFaults({ latencyMs: 1200 });
    const syncStarted = Date.now();
    const finished = syncStore(core, storeId);
    const report = await finished;
    const syncEnded = Date.now();
    expect(report.outcome).toBe('ok');
    expect(syncEnded - syncStarted).toBeGreaterThan(3000);

    // Its start (sync.started) changes no data, so nothing is reloaded then; the refreshes during it
    // are driven by its progress, at most one per 2 s (lib/refresh.svelte.ts), and each asks for the
    // rows on screen, from the cursor of the page they are in (<= 200 rows before them).
    const during = listCalls.filter((call) => call.at > syncStarted && call.at < syncEnded);
    expect(during.length).toBeGreaterThan(0);
    for (const call of during) {
      expect(call.cursor).not.toBeNull();
      expect(call.limit).toBeLessThanOrEqual(300);
    }
    // The sync's end refreshes the whole list once (the rows outside the window included).
    await expect
      .poll(() => listCalls.filter((call) => call.at >= syncEnded).length)
      .toBeGreaterThan(0);
  });
});
