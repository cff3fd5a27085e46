// A stand-in for the Electron runtime, which cannot run on these machines: just enough of app, BrowserWindow,
// session, ipcMain, Menu, shell, screen, contextBridge and ipcRenderer for the host's glue to be exercised.
// Used only through vi.mock('electron', …); every test using it says "(Electron mocked: …)" in its name.
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { vi } from 'vitest';

export const MOCKED = '(Electron mocked: the runtime cannot run here)';

export class FakeFrame {
  parent: FakeFrame | null = null;
  constructor(
    public url: string,
    public processId: number,
    public routingId: number,
  ) {}
}

let nextId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextId++;
  readonly mainFrame: FakeFrame;
  readonly sent: unknown[][] = [];
  destroyed = false;
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;

  constructor(url = 'about:blank') {
    super();
    this.mainFrame = new FakeFrame(url, 7, this.id);
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push([channel, ...args]);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  /** Emits `name` with an Electron-like event; true when a listener called preventDefault(). */
  emitPreventable(name: string, details: Record<string, unknown> = {}): boolean {
    let prevented = false;
    this.emit(name, { ...details, preventDefault: () => (prevented = true) });
    return prevented;
  }
  /** A frame inside this page (an iframe), for sender checks. */
  childFrame(url: string): FakeFrame {
    const frame = new FakeFrame(url, this.mainFrame.processId, this.mainFrame.routingId + 1000);
    frame.parent = this.mainFrame;
    return frame;
  }
}

type Bounds = { x: number; y: number; width: number; height: number };

export class FakeBrowserWindow extends EventEmitter {
  static created: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  loaded: { file: string } | { url: string } | null = null;
  bounds: Bounds;
  maximized = false;
  destroyed = false;
  focused = false;

  constructor(readonly options: Record<string, unknown>) {
    super();
    const n = (key: string, fallback: number) => {
      const value = options[key];
      return typeof value === 'number' ? value : fallback;
    };
    this.bounds = { x: n('x', 0), y: n('y', 0), width: n('width', 800), height: n('height', 600) };
    FakeBrowserWindow.created.push(this);
    app.emit('web-contents-created', {}, this.webContents);
  }
  loadFile(file: string): Promise<void> {
    this.loaded = { file };
    this.webContents.mainFrame.url = pathToFileURL(file).href;
    return Promise.resolve();
  }
  loadURL(url: string): Promise<void> {
    this.loaded = { url };
    this.webContents.mainFrame.url = url;
    return Promise.resolve();
  }
  maximize(): void {
    this.maximized = true;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  getNormalBounds(): Bounds {
    return { ...this.bounds };
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isMinimized(): boolean {
    return false;
  }
  restore(): void {}
  show(): void {}
  focus(): void {
    this.focused = true;
  }
}

type HeadersListener = (
  details: { url: string; responseHeaders?: Record<string, string[]> },
  callback: (response: { responseHeaders?: Record<string, string | string[]> }) => void,
) => void;

type PermissionRequestHandler = (
  contents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
) => void;

export function createFakeSession() {
  const fake = {
    headersListener: null as HeadersListener | null,
    permissionRequestHandler: null as PermissionRequestHandler | null,
    permissionCheckHandler: null as ((...args: unknown[]) => boolean) | null,
    webRequest: {
      onHeadersReceived(listener: HeadersListener) {
        fake.headersListener = listener;
      },
    },
    setPermissionRequestHandler(handler: PermissionRequestHandler) {
      fake.permissionRequestHandler = handler;
    },
    setPermissionCheckHandler(handler: (...args: unknown[]) => boolean) {
      fake.permissionCheckHandler = handler;
    },
  };
  return fake;
}
export type FakeSession = ReturnType<typeof createFakeSession>;

class FakeApp extends EventEmitter {
  isPackaged = false;
  sandboxed = false;
  lockGranted = true;
  lockRequested = false;
  quitCount = 0;
  exitCode: number | null = null;
  readonly paths = new Map<string, string>([['userData', '/nonexistent/userData']]);
  enableSandbox(): void {
    this.sandboxed = true;
  }
  requestSingleInstanceLock(): boolean {
    this.lockRequested = true;
    return this.lockGranted;
  }
  whenReady(): Promise<void> {
    return Promise.resolve();
  }
  getPath(name: string): string {
    return this.paths.get(name) ?? `/nonexistent/${name}`;
  }
  setPath(name: string, value: string): void {
    this.paths.set(name, value);
  }
  getVersion(): string {
    return '0.0.0-test';
  }
  quit(): void {
    this.quitCount += 1;
    // Like Electron: quitting emits will-quit, which a listener may postpone with preventDefault().
    let prevented = false;
    this.emit('will-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) this.emit('quit');
  }
  exit(code: number): void {
    this.exitCode = code;
  }
}

type InvokeHandler = (event: unknown, ...args: unknown[]) => unknown;

export const app = new FakeApp();
export const session = { defaultSession: createFakeSession() };
export const ipcMain = {
  handlers: new Map<string, InvokeHandler>(),
  handle(channel: string, handler: InvokeHandler) {
    if (this.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  },
  removeHandler(channel: string) {
    this.handlers.delete(channel);
  },
};
export const Menu = {
  current: null as { template: unknown[] } | null,
  buildFromTemplate: (template: unknown[]) => ({ template }),
  setApplicationMenu(menu: { template: unknown[] }) {
    Menu.current = menu;
  },
};
export const shell = { openExternal: vi.fn(async (_url: string) => undefined) };
export const dialog = { showErrorBox: vi.fn((_title: string, _content: string) => undefined) };
export const screen = {
  workAreas: [{ x: 0, y: 0, width: 1920, height: 1040 }] as Bounds[],
  getPrimaryDisplay: () => ({ workArea: screen.workAreas[0] }),
  getAllDisplays: () => screen.workAreas.map((workArea) => ({ workArea })),
};

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown) {
    if (contextBridge.exposed.has(key))
      throw new Error(`Cannot bind an API on top of an existing property "${key}"`);
    contextBridge.exposed.set(key, api);
  },
};

type RendererListener = (event: unknown, ...args: unknown[]) => void;
export const ipcRenderer = {
  invoke: vi.fn(async (channel: string, input: unknown) => ({
    ok: true,
    data: { channel, input },
  })),
  listeners: new Map<string, RendererListener[]>(),
  on(channel: string, listener: RendererListener) {
    ipcRenderer.listeners.set(channel, [...(ipcRenderer.listeners.get(channel) ?? []), listener]);
    return ipcRenderer;
  },
  /** What main's webContents.send(channel, ...args) does on the renderer side. */
  deliver(channel: string, ...args: unknown[]) {
    for (const listener of ipcRenderer.listeners.get(channel) ?? [])
      listener({ sender: 'ipc-event' }, ...args);
  },
};

export const BrowserWindow = FakeBrowserWindow;

type ProtocolHandler = (request: Request) => Promise<Response>;
export const protocol = {
  privileged: [] as unknown[],
  handlers: new Map<string, ProtocolHandler>(),
  registerSchemesAsPrivileged(schemes: unknown[]) {
    protocol.privileged.push(...schemes);
  },
  handle(scheme: string, handler: ProtocolHandler) {
    protocol.handlers.set(scheme, handler);
  },
};
/** Electron's net.fetch reads file:// URLs; Node's fetch does not, so the fake reads the file itself. */
export const net = {
  fetch: vi.fn(async (url: string) => {
    return new Response(await readFile(fileURLToPath(url)));
  }),
  online: true,
  isOnline: () => net.online,
};

/** Electron's powerMonitor: a test emits 'resume' as the machine waking. */
export const powerMonitor = new EventEmitter();

/** Electron's main-process Notification: every one shown is kept, and a test clicks it. */
export class Notification extends EventEmitter {
  static supported = true;
  static shown: Notification[] = [];
  static isSupported(): boolean {
    return Notification.supported;
  }
  constructor(readonly options: { title: string; body: string }) {
    super();
  }
  show(): void {
    Notification.shown.push(this);
  }
}

const electron = {
  app,
  session,
  ipcMain,
  Menu,
  shell,
  dialog,
  screen,
  contextBridge,
  ipcRenderer,
  BrowserWindow,
  protocol,
  net,
  powerMonitor,
  Notification,
};
export default electron;
