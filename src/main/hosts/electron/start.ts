// Electron host: one locked-down window over the core, the contract served over IPC, events forwarded.
import { dirname, join, resolve } from 'node:path';
import {
  app,
  dialog,
  ipcMain,
  Menu,
  net,
  Notification,
  powerMonitor,
  protocol,
  session,
  type BrowserWindow,
} from 'electron';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { createCore, createKeychainSecretStore, type Core, type SaveFormat } from '#core/index';
import { printHtmlToPdf } from './print-pdf';
import { openExternalSafely } from './external';
import { forwardEvents, registerHandlers, sendEvent } from './ipc';
import { menuTemplate } from './menu';
import { backUpFromMenu } from './backup';
import { rendererSource, type RendererSource } from './renderer-source';
import { applyContentSecurityPolicy, denyAllPermissions, hardenWebContents } from './security';
import { followMachine, notifyReadyCalls } from './background';
import { createMainWindow } from './window';
import { WINDOW_STATE_FILE } from './window-state';

// Bundled, this file is part of out/main/index.js, which sits beside out/preload and out/renderer.
const OUT_DIR = join(import.meta.dirname, '..');
const isMac = process.platform === 'darwin';

/** The save dialog's filter for each kind of file the core saves. */
const SAVE_FILTERS: Record<SaveFormat, { name: string; extensions: string[] }> = {
  csv: { name: 'CSV', extensions: ['csv'] },
  xlsx: { name: 'Excel workbook', extensions: ['xlsx'] },
  html: { name: 'Web page (report)', extensions: ['html'] },
  pdf: { name: 'PDF', extensions: ['pdf'] },
};

/** Boots the Electron host: one instance, a sandboxed window over the core. Called once by src/main/index.ts. */
export function startElectronHost(): void {
  const source = rendererSource(
    process.env['ELECTRON_RENDERER_URL'],
    app.isPackaged,
    join(OUT_DIR, 'renderer', 'index.html'),
  );
  app.enableSandbox();
  // Before ready, as Electron requires: the built renderer is served on app://, never file://.
  registerAppScheme(protocol);
  // Tests and power users point the app at another data folder, as with the browser host and the CLI.
  const dataDirOverride = process.env['SPLITBOOK_DATA_DIR'];
  if (dataDirOverride) app.setPath('userData', resolve(dataDirOverride));

  if (app.requestSingleInstanceLock()) {
    start(source).catch((error: unknown) => {
      console.error('[splitbook] could not start:', error);
      dialog.showErrorBox(
        'Splitbook could not start',
        error instanceof Error ? error.message : String(error),
      );
      app.exit(1);
    });
  } else {
    // Another Splitbook is running: it gets focused (see 'second-instance') and this one leaves.
    app.quit();
  }
}

async function start(source: RendererSource): Promise<void> {
  let window: BrowserWindow | null = null;
  const contents = () => (window && !window.isDestroyed() ? window.webContents : null);

  app.on('web-contents-created', (_event, created) =>
    hardenWebContents(created, source, openExternalSafely),
  );
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  await app.whenReady();
  if (source.kind === 'file') {
    serveRenderer(protocol, dirname(source.indexFile), (fileUrl) => net.fetch(fileUrl));
  }
  applyContentSecurityPolicy(session.defaultSession);
  denyAllPermissions(session.defaultSession);

  const core = await createCore({
    dataDir: app.getPath('userData'),
    secrets: createKeychainSecretStore(),
    host: 'electron',
    version: app.getVersion(),
    // Syncs run on a thread of their own (built beside this file), so the window is always answered.
    syncThread: {
      file: join(OUT_DIR, 'main', 'sync-worker.js'),
      decoder: { file: join(OUT_DIR, 'main', 'results-decoder.js') },
    },
    // A settings change's calls are made on threads of their own too, so the other cores do the work.
    callThread: { file: join(OUT_DIR, 'main', 'call-worker.js') },
    // Every store kept current while the app runs, once the window has painted.
    backgroundSync: true,
    // The cache's quick_check once the window shows data, not before the first row.
    integrityCheck: 'background',
    openExternal: openExternalSafely,
    // Client reports print to PDF in a hidden, script-less window that loads nothing.
    printToPdf: printHtmlToPdf,
    // Exports are saved where the user says, through the native dialog.
    saveFile: async ({ suggestedName, format }) => {
      const options = {
        defaultPath: join(app.getPath('documents'), suggestedName),
        filters: [SAVE_FILTERS[format]],
      };
      const current = window;
      const chosen = current
        ? await dialog.showSaveDialog(current, options)
        : await dialog.showSaveDialog(options);
      if (chosen.canceled || !chosen.filePath) return null;
      const path = chosen.filePath;
      return { path, saved: async () => ({ location: path, downloadUrl: null }) };
    },
  });
  closeCoreOnQuit(core);
  // A store the CLI adds (or removes) while the window is open shows up at once (the core stops it at close).
  core.watchStores();
  void reportKeychain(core);

  registerHandlers(ipcMain, core, { window: () => window, source });
  // "Ready for a call" is a desktop notification from here; the window is sent only what it shows itself.
  const notices = notifyReadyCalls(core, {
    Notification,
    focusWindow: () => {
      if (!window) openWindow();
      else {
        if (window.isMinimized()) window.restore();
        window.show();
        window.focus();
      }
    },
    // A window opened by the click gets the event once its page has loaded (and subscribed).
    send: (name, payload) => {
      const target = contents();
      if (target?.isLoading())
        target.once('did-finish-load', () => sendEvent(target, name, payload));
      else sendEvent(target, name, payload);
    },
  });
  forwardEvents(core, contents, notices.shownHere);
  followMachine(core, { net, powerMonitor });
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate({
        isMac,
        isDev: source.kind === 'dev',
        send: (command) => sendEvent(contents(), 'menu.command', { command }),
        backup: () => void backUpFromMenu(core, window),
      }),
    ),
  );

  const openWindow = () => {
    const created = createMainWindow({
      source,
      preloadFile: join(OUT_DIR, 'preload', 'index.cjs'),
      stateFile: join(app.getPath('userData'), WINDOW_STATE_FILE),
    });
    created.on('closed', () => {
      if (window === created) window = null;
    });
    window = created;
  };
  openWindow();
  app.on('activate', () => {
    if (!window) openWindow();
  });
  app.on('window-all-closed', () => {
    if (!isMac) app.quit();
  });
}

/** The keychain self-test runs inside the core at start; the renderer shows its verdict from app.info. */
async function reportKeychain(core: Core): Promise<void> {
  try {
    const info = await core.services.app.info({});
    if (!info.keychain.available) {
      console.warn(`[splitbook] keychain unavailable: ${info.keychain.message ?? ''}`);
    }
  } catch (error) {
    console.error('[splitbook] keychain self-test could not run:', error);
  }
}

/** Quitting waits for the core to cancel its syncs and close the database. */
function closeCoreOnQuit(core: Core): void {
  let state: 'open' | 'closing' | 'closed' = 'open';
  app.on('will-quit', (event) => {
    if (state === 'closed') return;
    event.preventDefault();
    if (state === 'closing') return;
    state = 'closing';
    core
      .close()
      .catch((error: unknown) => console.error('[splitbook] could not close cleanly:', error))
      .finally(() => {
        state = 'closed';
        app.quit();
      });
  });
}
