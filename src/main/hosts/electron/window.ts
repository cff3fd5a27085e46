// The main window: locked-down web preferences, placed where it was last time, showing the renderer.
import { BrowserWindow, screen, type BrowserWindowConstructorOptions } from 'electron';
import { APP_INDEX_URL } from './app-protocol';
import type { RendererSource } from './renderer-source';
import {
  MIN_SIZE,
  placeWindow,
  readWindowState,
  writeWindowState,
  type WindowState,
} from './window-state';

/** The renderer gets no Node, runs sandboxed in an isolated world and reaches main only through the preload. */
export function mainWindowOptions(
  preloadFile: string,
  place: WindowState,
): BrowserWindowConstructorOptions {
  return {
    x: place.x,
    y: place.y,
    width: place.width,
    height: place.height,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'Splitbook',
    show: false,
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
    },
  };
}

export interface MainWindowSetup {
  source: RendererSource;
  /** Absolute path of out/preload/index.cjs. */
  preloadFile: string;
  /** The JSON file that remembers size and position. */
  stateFile: string;
}

export function createMainWindow({
  source,
  preloadFile,
  stateFile,
}: MainWindowSetup): BrowserWindow {
  const workAreas = [screen.getPrimaryDisplay(), ...screen.getAllDisplays()].map(
    (display) => display.workArea,
  );
  const place = placeWindow(readWindowState(stateFile), workAreas);
  const window = new BrowserWindow(mainWindowOptions(preloadFile, place));
  if (place.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());
  window.on('close', () => {
    try {
      writeWindowState(stateFile, { ...window.getNormalBounds(), maximized: window.isMaximized() });
    } catch (error) {
      console.error('[splitbook] could not remember the window position:', error);
    }
  });
  const loaded = source.kind === 'dev' ? window.loadURL(source.url) : window.loadURL(APP_INDEX_URL);
  loaded.catch((error: unknown) =>
    console.error('[splitbook] the window could not load the app:', error),
  );
  return window;
}
