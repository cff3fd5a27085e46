// Sharing and linking from the window: Settings, Team in Chromium through the browser host, three desktops (real cores, their own data folders) on the project's team server: Share, Link by id, and the link offered to a member whose store holds the team's tests.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { screenshotsAtEverySize } from '../support/chromium';
import { allTestRows, startCore, syncStore } from '../support/core';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });

const root = tempDir('team-share-window');
const SHOTS = path.join(root, 'shots');
let server: RunningServer;
const cores: Core[] = [];
const windows: RendererWindow[] = [];
const desks: Record<string, { core: Core; window: RendererWindow }> = {};

async function desk(name: string): Promise<{ core: Core; window: RendererWindow }> {
  const token = addMember(path.join(root, 'server'), name, 'all');
  const core = await startCore(path.join(root, name), { host: 'browser' });
  cores.push(core);
  await core.services.stores.openDemo({});
  await syncStore(core, 'demo');
  await core.services.team.join({ url: server.url, token });
  const window = await openRenderer(core);
  windows.push(window);
  desks[name] = { core, window };
  return { core, window };
}

async function teamSettings(window: RendererWindow) {
  await window.page.getByRole('button', { name: 'Settings' }).click();
  const team = window.page.getByTestId('settings-team');
  await team.scrollIntoViewIfNeeded();
  return team;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer(path.join(root, 'server'));
});

afterAll(async () => {
  for (const window of windows) await window.close();
  for (const core of cores) await core.close();
  await server?.stop();
  if (!process.env['SPLITBOOK_KEEP_SHOTS']) removeDir(root);
});

describe('Settings, Team: share and link', () => {
  it('shares a store, links it by id on another desktop, and offers the link to a third', async () => {
    const alice = await desk('alice');
    const team = await teamSettings(alice.window);
    const demo = team.locator('[data-testid="team-store"][data-store="demo"]');
    await demo.getByTestId('team-share').click();
    await expect
      .poll(() => demo.getByTestId('team-store-state').textContent())
      .toContain('shared as');
    const teamStoreId = (await alice.core.services.team.status({})).stores[0]?.teamStoreId ?? '';
    expect(teamStoreId).not.toBe('');
    expect(await demo.textContent()).toContain(teamStoreId);
    await screenshotsAtEverySize(alice.window.page, SHOTS, 'team-shared', () =>
      team.scrollIntoViewIfNeeded(),
    );
    const [first] = await allTestRows(alice.core, 'demo');
    await alice.core.services.team.setNote({
      storeId: 'demo',
      testId: first?.id ?? '',
      text: 'Wait for the weekend.',
      append: false,
    });
    await alice.core.services.team.sync({ timeoutMs: 30_000 });

    // Bob links by the id alice passes on.
    const bob = await desk('bob');
    const bobTeam = await teamSettings(bob.window);
    const bobDemo = bobTeam.locator('[data-testid="team-store"][data-store="demo"]');
    await bobDemo.getByTestId('team-link-id').fill(teamStoreId);
    await bobDemo.getByTestId('team-link').click();
    await expect
      .poll(() => bobDemo.getByTestId('team-store-state').textContent())
      .toContain(teamStoreId);
    await expect
      .poll(async () => (await bob.core.services.team.notes({ storeId: 'demo' }))[0]?.text, {
        timeout: 20_000,
      })
      .toBe('Wait for the weekend.');

    // Carol is offered it: her demo store holds the test alice wrote on.
    const carol = await desk('carol');
    const carolTeam = await teamSettings(carol.window);
    const offer = carolTeam.getByTestId('team-offer');
    await expect.poll(() => offer.textContent(), { timeout: 30_000 }).toContain('shared by alice');
    expect(await offer.textContent()).toContain('holds 1 of the 1 test');
    await screenshotsAtEverySize(carol.window.page, SHOTS, 'team-offer', () =>
      carolTeam.scrollIntoViewIfNeeded(),
    );
    await offer.getByTestId('team-offer-link').click();
    await expect.poll(() => offer.count()).toBe(0);
    expect((await carol.core.services.team.status({})).stores).toMatchObject([
      { storeId: 'demo', teamStoreId },
    ]);
    await expect
      .poll(async () => (await carol.core.services.team.notes({ storeId: 'demo' }))[0]?.text, {
        timeout: 20_000,
      })
      .toBe('Wait for the weekend.');
    for (const window of windows) expect(window.pageErrors).toEqual([]);
  });

  it('shows who else has the store open beside its name, and no longer once they leave it', async () => {
    const alice = desks['alice'];
    const bob = desks['bob'];
    if (!alice || !bob) throw new Error('the first test makes the desktops');
    for (const { window } of [alice, bob]) await window.page.keyboard.press('Escape');
    const others = (window: RendererWindow) =>
      window.page.getByTestId('store-others').allTextContents();
    const demoRow = (window: RendererWindow) =>
      window.page.getByRole('navigation', { name: 'Stores and views' }).getByText('Demo store');

    await demoRow(alice.window).click();
    await expect.poll(() => others(bob.window), { timeout: 10_000 }).toEqual(['alice']);
    // Alice's own window names nobody: she is not "someone else".
    expect(await others(alice.window)).toEqual([]);
    await demoRow(bob.window).click();
    await expect.poll(() => others(alice.window), { timeout: 10_000 }).toEqual(['bob']);
    await screenshotsAtEverySize(bob.window.page, SHOTS, 'team-presence');

    await alice.window.page
      .getByRole('navigation', { name: 'Stores and views' })
      .getByText('All stores')
      .click();
    await expect.poll(() => others(bob.window), { timeout: 10_000 }).toEqual([]);
    // Alice no longer has the store open, and is still online: Settings, Team says who is.
    const online = (await teamSettings(bob.window)).getByTestId('team-online');
    await expect
      .poll(() => online.textContent(), { timeout: 10_000 })
      .toMatch(/Online now: .*alice/);
    expect(await online.textContent()).not.toContain('bob');
    await bob.window.page.keyboard.press('Escape');
    for (const window of windows) expect(window.pageErrors).toEqual([]);
  });

  it("stops sharing a store on one desktop: Share is offered again and its note stays, the colleague's link as it was", async () => {
    const carol = desks['carol'];
    const bob = desks['bob'];
    if (!carol || !bob) throw new Error('the first test makes the desktops');
    // Carol's Settings are still open from the first test.
    const team = carol.window.page.getByTestId('settings-team');
    const demo = team.locator('[data-testid="team-store"][data-store="demo"]');
    await demo.getByTestId('team-unlink').click();
    await demo.getByTestId('team-share').waitFor();
    expect(await demo.getByTestId('team-store-state').count()).toBe(0);
    expect((await carol.core.services.team.status({})).stores).toEqual([]);
    const [first] = await allTestRows(carol.core, 'demo');
    const note = await carol.core.services.notes.get({ storeId: 'demo', testId: first?.id ?? '' });
    expect(note.body).toBe('Wait for the weekend.');
    expect((await bob.core.services.team.status({})).stores.map((s) => s.storeId)).toEqual([
      'demo',
    ]);
    for (const window of windows) expect(window.pageErrors).toEqual([]);
  });
});
