// Test support: the built renderer served by the browser host over a real core, open in Chromium,
// with the page's script errors collected. Every e2e file starts its window here.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { CoreDeps } from '#core/index';
import type { Core } from '#core/types';
import {
  startBrowserHost,
  type BrowserHost,
  type BrowserHostOptions,
} from '../../src/main/hosts/browser/server';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
  type SimulatorOptions,
} from '#simulator/index';
import { launchChromium } from './chromium';
import { startCore, syncStore, testSecrets } from './core';

export const RENDERER = resolve('out/renderer');

export interface RendererWindow extends RendererServer {
  page: Page;
  /** Script errors the page reported; a run must end with none. */
  pageErrors: string[];
}

export interface OpenRendererOptions {
  /** Browser-host options besides the core and the renderer folder (downloads, heartbeat). */
  host?: Omit<BrowserHostOptions, 'core' | 'staticDir'>;
  /** The page's options; 1440×900 unless given. */
  page?: BrowserContextOptions;
  /**
   * Also count the console's errors as page errors, but for answers with an error status (a refused
   * key, a store gone), which the browser logs as "Failed to load resource" and the app expects.
   */
  consoleErrors?: boolean;
  /** Runs before the page loads the app (request listeners, init scripts). */
  beforeLoad?: (page: Page) => void | Promise<void>;
}

/** The built renderer served over `core`, and Chromium: for tests that open pages of their own. */
export interface RendererServer {
  host: BrowserHost;
  browser: Browser;
  /** Closes the browser and the host (not the core: the test owns it). */
  close(): Promise<void>;
}

export async function serveRenderer(
  core: Core,
  hostOptions: OpenRendererOptions['host'] = {},
): Promise<RendererServer> {
  if (!existsSync(join(RENDERER, 'index.html'))) {
    throw new Error(
      'The renderer is not built: run `npx electron-vite build` (npm test does) before the e2e tests.',
    );
  }
  const host = await startBrowserHost({ core, staticDir: RENDERER, ...hostOptions });
  const browser = await launchChromium();
  return {
    host,
    browser,
    async close() {
      await browser.close();
      await host.close();
    },
  };
}

/** The renderer served over `core`, loaded in one Chromium page with its script errors collected. */
export async function openRenderer(
  core: Core,
  options: OpenRendererOptions = {},
): Promise<RendererWindow> {
  const server = await serveRenderer(core, options.host);
  const page = await server.browser.newPage({
    viewport: { width: 1440, height: 900 },
    ...options.page,
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  if (options.consoleErrors) {
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        pageErrors.push(message.text());
    });
  }
  await options.beforeLoad?.(page);
  await page.goto(server.host.url);
  return { ...server, page, pageErrors };
}

/** One store served by the simulator over HTTP, added to a real core and synced once. */
export interface SyncedStore {
  simulator: Simulator;
  served: ServedSimulator;
  core: Core;
  storeId: string;
}

export async function syncedStore(
  dataDir: string,
  options: {
    name: string;
    tests: number;
    seed: number;
    /** More simulator options (rate, faults). */
    simulator?: Omit<SimulatorOptions, 'seed' | 'stores'>;
    /** More core options (a recording fetch); the core's clock is the simulator's unless given. */
    core?: Partial<CoreDeps>;
  },
): Promise<SyncedStore> {
  const simulator = createSimulator({
    seed: options.seed,
    stores: [{ name: options.name, tests: options.tests }],
    ...options.simulator,
  });
  const served = await serveSimulator(simulator);
  const core = await startCore(dataDir, {
    host: 'browser',
    secrets: testSecrets(),
    clock: () => simulator.now(),
    ...options.core,
  });
  const apiKey = simulator.stores[0]?.apiKey ?? '';
  const { id: storeId } = await core.services.stores.add({
    name: options.name,
    baseUrl: served.url,
    apiKey,
    sessionOnly: false,
  });
  const report = await syncStore(core, storeId);
  if (report.outcome !== 'ok') throw new Error(`The first sync ended ${report.outcome}`);
  return { simulator, served, core, storeId };
}
