// The window tells of a restore that was cut short and finished at this start (issue 46, item 2): a restore
// killed (SIGKILL, in a process of its own) after its third rename, then the real core started on the
// folder and the renderer open in Chromium through the browser host. The notice shows above the status bar
// with the backup's name and where the replaced data is kept, until dismissed.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Core } from '#core/types';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { createMemorySecretStore } from '#core/secrets/index';
import { screenshotsAtEverySize } from '../support/chromium';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { startCore, tempDir } from '../support/core';
import { runTsx } from '../hosts/support/spawn';
import { childEnv } from '../backup/support';

const SCREENS = resolve('test-results/screens');
const data = tempDir('splitbook-e2e-restore-notice-');
let served: ServedSimulator;
let core: Core | undefined;
let win: RendererWindow | undefined;

async function folderWithStore(dir: string, name: string): Promise<void> {
  const sim = createSimulator({ seed: 5, stores: [{ name, tests: 4 }] });
  served = await serveSimulator(sim);
  const opened = await startCore(dir, { secrets: createMemorySecretStore(), pushOnEdit: false });
  await opened.services.stores.add({
    name,
    baseUrl: served.url,
    apiKey: sim.stores[0]?.apiKey ?? '',
    sessionOnly: true,
  });
  await opened.close();
}

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  const source = join(data.path, 'source');
  await folderWithStore(source, 'Acme Outdoor');
  const backup = join(data.path, 'acme.backup');
  const maker = await startCore(source, { secrets: createMemorySecretStore() });
  await maker.data.backup(backup);
  await maker.close();
  await served.close();
  const live = join(data.path, 'live');
  await folderWithStore(live, 'Replaced');
  const run = await runTsx('test/backup/fixtures/restore-child.ts', [live, backup, 'renamed-3'], {
    env: childEnv(),
  });
  expect(run.code).toBe(137);
  core = await startCore(live, { host: 'browser', secrets: createMemorySecretStore() });
  win = await openRenderer(core);
}, 120_000);

afterAll(async () => {
  await win?.close();
  await core?.close();
  await served.close();
  data.remove();
});

it('shows the notice of a finished restore, with where the replaced data is kept, until dismissed', async () => {
  if (!win) throw new Error('no window');
  const { page } = win;
  const notice = page
    .getByRole('status')
    .filter({ hasText: 'A restore that was cut short has been finished' });
  await expect.poll(() => notice.count()).toBe(1);
  expect(await notice.textContent()).toMatch(/acme\.backup .*before-restore-/);
  await expect
    .poll(() => page.getByRole('navigation', { name: 'Stores and views' }).textContent())
    .toContain('Acme Outdoor');
  await screenshotsAtEverySize(page, SCREENS, 'restore-notice');
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect.poll(() => notice.count()).toBe(0);
  expect(win.pageErrors).toEqual([]);
});
