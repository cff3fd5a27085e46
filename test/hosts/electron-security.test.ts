// The Electron window's fences: web preferences, CSP, permissions, navigation, new windows, <webview>, external links.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Session, WebContents } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMainWindow, mainWindowOptions } from '../../src/main/hosts/electron/window';
import {
  applyContentSecurityPolicy,
  denyAllPermissions,
  hardenWebContents,
} from '../../src/main/hosts/electron/security';
import { openExternalSafely, safeExternalUrl } from '../../src/main/hosts/electron/external';
import { APP_INDEX_URL } from '../../src/main/hosts/electron/app-protocol';
import type { RendererSource } from '../../src/main/hosts/electron/renderer-source';
import { CONTENT_SECURITY_POLICY } from '../../src/main/hosts/common/csp';
import { ProblemError } from '#shared/problem';
import {
  createFakeSession,
  FakeBrowserWindow,
  FakeWebContents,
  MOCKED,
  screen,
  shell,
} from './support/fake-electron';

vi.mock('electron', async () => import('./support/fake-electron'));

const INDEX = '/opt/splitbook/out/renderer/index.html';
const FILE_SOURCE: RendererSource = { kind: 'file', indexFile: INDEX };

describe(`the main window ${MOCKED}`, () => {
  it('runs the renderer sandboxed, context-isolated, without Node and with web security, through our preload', () => {
    const options = mainWindowOptions('/opt/splitbook/out/preload/index.cjs', {
      x: 1,
      y: 2,
      width: 1000,
      height: 700,
      maximized: false,
    });
    expect(options.webPreferences).toMatchObject({
      preload: '/opt/splitbook/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(options).toMatchObject({ x: 1, y: 2, width: 1000, height: 700, show: false });
  });

  describe('placement and loading', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'splitbook-window-'));
      FakeBrowserWindow.created.length = 0;
      screen.workAreas = [{ x: 0, y: 0, width: 1920, height: 1040 }];
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('loads the built renderer from app:// and restores the saved bounds, maximized as it was', () => {
      const stateFile = join(dir, 'window-state.json');
      writeFileSync(
        stateFile,
        JSON.stringify({ x: 100, y: 80, width: 1100, height: 700, maximized: true }),
      );
      createMainWindow({ source: FILE_SOURCE, preloadFile: '/p/index.cjs', stateFile });
      const window = FakeBrowserWindow.created[0];
      expect(window?.loaded).toEqual({ url: APP_INDEX_URL });
      expect(window?.options).toMatchObject({ x: 100, y: 80, width: 1100, height: 700 });
      expect(window?.maximized).toBe(true);
    });

    it('loads the dev server URL in development', () => {
      createMainWindow({
        source: { kind: 'dev', url: 'http://localhost:5173/' },
        preloadFile: '/p',
        stateFile: join(dir, 's.json'),
      });
      expect(FakeBrowserWindow.created[0]?.loaded).toEqual({ url: 'http://localhost:5173/' });
    });

    it('brings a window saved on a display that is gone back onto the primary display', () => {
      const stateFile = join(dir, 'window-state.json');
      writeFileSync(
        stateFile,
        JSON.stringify({ x: 3000, y: 200, width: 1200, height: 800, maximized: false }),
      );
      createMainWindow({ source: FILE_SOURCE, preloadFile: '/p', stateFile });
      expect(FakeBrowserWindow.created[0]?.options).toMatchObject({
        x: 720,
        y: 200,
        width: 1200,
        height: 800,
      });
    });

    it('remembers the normal bounds and the maximized state when the window closes', () => {
      const stateFile = join(dir, 'window-state.json');
      createMainWindow({ source: FILE_SOURCE, preloadFile: '/p', stateFile });
      const window = FakeBrowserWindow.created[0];
      if (!window) throw new Error('no window');
      window.bounds = { x: 40, y: 30, width: 1000, height: 650 };
      window.maximized = true;
      window.emit('close');
      expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toEqual({
        x: 40,
        y: 30,
        width: 1000,
        height: 650,
        maximized: true,
      });
    });
  });
});

describe(`the Content-Security-Policy ${MOCKED}`, () => {
  it('is exactly the strict policy: nothing by default, only our own scripts, styles, images, fonts and connections', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it('is set on every response and replaces any policy the response brought', () => {
    const fake = createFakeSession();
    applyContentSecurityPolicy(fake as unknown as Session);
    const answer = vi.fn();
    fake.headersListener?.(
      {
        url: pathToFileURL(INDEX).href,
        responseHeaders: {
          'content-type': ['text/html'],
          'Content-Security-Policy': ["default-src *; script-src 'unsafe-eval'"],
        },
      },
      answer,
    );
    expect(answer).toHaveBeenCalledWith({
      responseHeaders: {
        'content-type': ['text/html'],
        'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
      },
    });
  });
});

describe(`permissions ${MOCKED}`, () => {
  it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal'])(
    'refuses a %s request and check',
    (permission) => {
      const fake = createFakeSession();
      denyAllPermissions(fake as unknown as Session);
      const granted = vi.fn();
      fake.permissionRequestHandler?.({}, permission, granted);
      expect(granted).toHaveBeenCalledWith(false);
      expect(fake.permissionCheckHandler?.({}, permission)).toBe(false);
    },
  );
});

describe(`navigation, new windows and webviews ${MOCKED}`, () => {
  function hardened(source: RendererSource = FILE_SOURCE) {
    const contents = new FakeWebContents(APP_INDEX_URL);
    const openExternal = vi.fn(async (_url: string) => undefined);
    hardenWebContents(contents as unknown as WebContents, source, openExternal);
    return { contents, openExternal };
  }

  it.each([
    'https://evil.example/',
    'file:///etc/passwd',
    pathToFileURL('/opt/splitbook/out/renderer/other.html').href,
    pathToFileURL(INDEX).href,
    'app://splitbook/other.html',
    'app://elsewhere/index.html',
    'javascript:alert(1)',
  ])('cancels navigation to %s', (url) => {
    expect(
      hardened().contents.emitPreventable('will-navigate', {
        url,
        isSameDocument: false,
        isMainFrame: true,
      }),
    ).toBe(true);
  });

  it("lets the app's own page reload (the dev server's full reload), and nothing else of that origin but the page", () => {
    expect(
      hardened().contents.emitPreventable('will-navigate', {
        url: `${APP_INDEX_URL}#tests`,
      }),
    ).toBe(false);
    const dev = hardened({ kind: 'dev', url: 'http://localhost:5173/' }).contents;
    expect(dev.emitPreventable('will-navigate', { url: 'http://localhost:5173/' })).toBe(false);
    expect(dev.emitPreventable('will-navigate', { url: 'http://localhost:5174/' })).toBe(true);
  });

  it('never opens a window; an http(s) link goes to the browser instead', () => {
    const { contents, openExternal } = hardened();
    expect(contents.windowOpenHandler?.({ url: 'https://docs.example.com/tests?id=1' })).toEqual({
      action: 'deny',
    });
    expect(openExternal).toHaveBeenCalledWith('https://docs.example.com/tests?id=1');
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'smb://host/share',
    'https://user:pw@example.com/',
    'not a url',
  ])('denies window.open(%s) without opening anything', (url) => {
    const { contents, openExternal } = hardened();
    expect(contents.windowOpenHandler?.({ url })).toEqual({ action: 'deny' });
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('refuses to attach a <webview>', () => {
    expect(hardened().contents.emitPreventable('will-attach-webview', {})).toBe(true);
  });
});

describe(`external links ${MOCKED}`, () => {
  it('accepts plain http(s) addresses, normalized', () => {
    expect(safeExternalUrl('https://Example.com/a b')).toBe('https://example.com/a%20b');
    expect(safeExternalUrl('http://example.com')).toBe('http://example.com/');
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'mailto:a@b.c',
    'https://user:pw@example.com/',
    '',
    `https://e.com/${'a'.repeat(2001)}`,
  ])('refuses %s', (url) => expect(safeExternalUrl(url)).toBeNull());

  it("hands a safe link to the OS and refuses any other as a 400 problem (the core's openExternal dependency)", async () => {
    shell.openExternal.mockClear();
    await openExternalSafely('https://example.com/docs');
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/docs');
    await expect(openExternalSafely('file:///etc/passwd')).rejects.toBeInstanceOf(ProblemError);
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });
});
