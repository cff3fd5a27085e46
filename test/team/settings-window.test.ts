// The window's Team section in Settings, in Chromium through the browser host over a real core and the project's team server: a plain ws:// to another machine refused as typed, join, status, leave.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { screenshotsAtEverySize } from '../support/chromium';
import { startCore } from '../support/core';
import { openRenderer, type RendererWindow } from '../support/e2e';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const root = tempDir('team-window');
const SHOTS = path.join(root, 'shots');
let server: RunningServer;
let core: Core;
let window: RendererWindow;
let token = '';

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  token = addMember(path.join(root, 'server'), 'alice', 'all');
  server = await startServer(path.join(root, 'server'));
  core = await startCore(path.join(root, 'desk'), { host: 'browser' });
  await core.services.stores.openDemo({});
  window = await openRenderer(core);
});

afterAll(async () => {
  await window?.close();
  await core?.close();
  await server?.stop();
  if (!process.env['SPLITBOOK_KEEP_SHOTS']) removeDir(root);
});

describe('Settings, Team', () => {
  it('refuses plain ws:// to another machine as typed, joins, shows the status and leaves', async () => {
    const { page } = window;
    await page.getByRole('button', { name: 'Settings' }).click();
    const team = page.getByTestId('settings-team');
    await team.scrollIntoViewIfNeeded();
    await team.getByTestId('team-url').fill('ws://team.example.com');
    await expect.poll(() => team.getByRole('alert').textContent()).toContain('Plain ws://');
    expect(await team.getByTestId('team-join').isDisabled()).toBe(true);
    await screenshotsAtEverySize(page, SHOTS, 'team-refused', () => team.scrollIntoViewIfNeeded());

    await team.getByTestId('team-url').fill(server.url);
    await team.getByTestId('team-token').fill(token);
    await team.getByTestId('team-join').click();
    await expect.poll(() => team.getByTestId('team-state').textContent()).toContain('as alice');
    expect((await core.services.team.status({})).member).toBe('alice');
    await screenshotsAtEverySize(page, SHOTS, 'team-joined', () => team.scrollIntoViewIfNeeded());

    await team.getByTestId('team-leave').click();
    await team.getByTestId('team-url').waitFor();
    expect((await core.services.team.status({})).joined).toBe(false);
    expect(window.pageErrors).toEqual([]);
  });
});
