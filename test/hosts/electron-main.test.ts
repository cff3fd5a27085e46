// The Electron host's wiring (src/main/index.ts) over the real core: window, fences, IPC, events, menu, quit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHANNELS } from '#shared/contract/index';
import { EVENT_CHANNEL } from '#shared/channels';
import {
  app,
  FakeBrowserWindow,
  ipcMain,
  Menu,
  MOCKED,
  protocol,
  session,
} from './support/fake-electron';

vi.mock('electron', async () => import('./support/fake-electron'));

const dataDir = mkdtempSync(join(tmpdir(), 'splitbook-electron-'));

function mainWindow(): FakeBrowserWindow {
  const window = FakeBrowserWindow.created[0];
  if (!window) throw new Error('no window was created');
  return window;
}

async function call(channel: string, input: unknown): Promise<unknown> {
  const handler = ipcMain.handlers.get(channel);
  if (!handler) throw new Error(`no handler for ${channel}`);
  const contents = FakeBrowserWindow.created.at(-1)?.webContents;
  if (!contents) throw new Error('no window');
  return handler({ sender: contents, senderFrame: contents.mainFrame }, input);
}

describe(`the Electron host ${MOCKED}`, () => {
  beforeAll(async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    process.env['SPLITBOOK_DATA_DIR'] = dataDir;
    await import('../../src/main/index');
    await vi.waitFor(() => expect(ipcMain.handlers.size).toBe(CHANNELS.length), {
      timeout: 20_000,
    });
  });
  afterAll(() => {
    delete process.env['SPLITBOOK_DATA_DIR'];
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes the single-instance lock, sandboxes every renderer and keeps its data in userData', () => {
    expect(app.lockRequested).toBe(true);
    expect(app.sandboxed).toBe(true);
    expect(app.getPath('userData')).toBe(dataDir);
  });

  it('opens one locked-down window on the built renderer, with the built preload', () => {
    expect(FakeBrowserWindow.created).toHaveLength(1);
    const window = mainWindow();
    expect(window.options['webPreferences']).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(String((window.options['webPreferences'] as { preload: string }).preload)).toMatch(
      /[\\/]preload[\\/]index\.cjs$/,
    );
    expect(window.loaded).toEqual({ url: 'app://splitbook/index.html' });
    // app:// is declared before ready and served by a handler once ready.
    expect(protocol.privileged).toEqual([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
    expect(protocol.handlers.has('app')).toBe(true);
  });

  it('fences the session and every web contents: CSP, permissions, window.open', () => {
    expect(session.defaultSession.headersListener).not.toBeNull();
    expect(session.defaultSession.permissionRequestHandler).not.toBeNull();
    expect(mainWindow().webContents.windowOpenHandler?.({ url: 'file:///etc/passwd' })).toEqual({
      action: 'deny',
    });
    expect(
      mainWindow().webContents.emitPreventable('will-navigate', { url: 'https://evil.example/' }),
    ).toBe(true);
  });

  it('answers the window over IPC from the real core, as the electron host', async () => {
    expect(await call('app.info', {})).toMatchObject({
      ok: true,
      data: { host: 'electron', version: '0.0.0-test' },
    });
  });

  it('refuses a call from a page that is not ours', async () => {
    const handler = ipcMain.handlers.get('app.info');
    const frame = { ...mainWindow().webContents.mainFrame, url: 'https://evil.example/' };
    expect(
      await handler?.({ sender: mainWindow().webContents, senderFrame: frame }, {}),
    ).toMatchObject({ ok: false, problem: { status: 403 } });
  });

  it("forwards the core's events to the window", async () => {
    await call('stores.openDemo', {});
    expect(mainWindow().webContents.sent).toContainEqual([EVENT_CHANNEL, 'stores.changed', {}]);
  });

  it('sends menu commands to the window as the menu.command event', () => {
    const file = (Menu.current?.template ?? []).find(
      (item) => (item as { label?: string }).label === '&File',
    ) as {
      submenu: { label?: string; click?: () => void }[];
    };
    file.submenu.find((item) => item.label === 'Sync All Stores')?.click?.();
    expect(mainWindow().webContents.sent).toContainEqual([
      EVENT_CHANNEL,
      'menu.command',
      { command: 'syncAll' },
    ]);
  });

  it('focuses the existing window when a second instance starts', () => {
    app.emit('second-instance');
    expect(mainWindow().focused).toBe(true);
  });

  it('opens a new window on activate once the last one is closed', () => {
    mainWindow().emit('closed');
    app.emit('activate');
    expect(FakeBrowserWindow.created).toHaveLength(2);
    expect(FakeBrowserWindow.created[1]?.webContents.mainFrame.url).toBe(
      'app://splitbook/index.html',
    );
  });

  it('closes the core before it quits', async () => {
    const quit = vi.fn();
    app.on('quit', quit);
    app.quit();
    expect(quit).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(quit).toHaveBeenCalledOnce());
    // The database is closed: the core no longer answers (and the failure is a generic problem, not a crash).
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await call('stores.list', {})).toMatchObject({
      ok: false,
      problem: { status: 500, title: 'Unexpected error' },
    });
  });
});
