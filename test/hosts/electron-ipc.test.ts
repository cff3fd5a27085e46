// The IPC wrapper: one handler per contract method, every call checked for its sender, answers as Envelopes; events forwarded.
import { pathToFileURL } from 'node:url';
import type { BrowserWindow, IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import {
  forwardEvents,
  isTrustedSender,
  registerHandlers,
} from '../../src/main/hosts/electron/ipc';
import { APP_INDEX_URL } from '../../src/main/hosts/electron/app-protocol';
import type { RendererSource } from '../../src/main/hosts/electron/renderer-source';
import { CHANNELS } from '#shared/contract/index';
import { EVENT_CHANNEL } from '#shared/channels';
import { PROBLEM_TYPES } from '#shared/problem';
import {
  FakeBrowserWindow,
  FakeWebContents,
  ipcMain,
  MOCKED,
  type FakeFrame,
} from './support/fake-electron';
import { createTestCore } from './support/test-core';

vi.mock('electron', async () => import('./support/fake-electron'));

const INDEX = '/opt/splitbook/out/renderer/index.html';
const SOURCE: RendererSource = { kind: 'file', indexFile: INDEX };

function setup(source: RendererSource = SOURCE) {
  ipcMain.handlers.clear();
  const test = createTestCore();
  const window = new FakeBrowserWindow({});
  void window.loadURL(APP_INDEX_URL);
  let current: FakeBrowserWindow | null = window;
  const unregister = registerHandlers(ipcMain as unknown as IpcMain, test.core, {
    window: () => current as unknown as BrowserWindow | null,
    source,
  });
  const event = (frame: FakeFrame | null, sender: FakeWebContents = window.webContents) =>
    ({
      sender,
      senderFrame: frame,
      frameId: 1,
      processId: 1,
      type: 'frame',
    }) as unknown as IpcMainInvokeEvent;
  const invoke = async (channel: string, e: IpcMainInvokeEvent, input: unknown) => {
    const handler = ipcMain.handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return handler(e, input);
  };
  return { ...test, window, event, invoke, unregister, closeWindow: () => (current = null) };
}

describe(`registerHandlers ${MOCKED}`, () => {
  it('registers exactly one handler per contract method, and removes them all again', () => {
    const { unregister } = setup();
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...CHANNELS].sort());
    unregister();
    expect(ipcMain.handlers.size).toBe(0);
  });

  it("answers our window's main frame with dispatch()'s Envelope: data for a valid call", async () => {
    const { window, event, invoke, calls } = setup();
    const answer = await invoke('sync.start', event(window.webContents.mainFrame), {
      storeId: 'acme',
    });
    expect(answer).toEqual({ ok: true, data: { echo: 'sync.start', input: { storeId: 'acme' } } });
    expect(calls).toEqual([{ channel: 'sync.start', input: { storeId: 'acme' } }]);
  });

  it('answers an invalid input with a 400 problem, without calling the core', async () => {
    const { window, event, invoke, calls } = setup();
    const answer = await invoke('sync.start', event(window.webContents.mainFrame), { storeId: 42 });
    expect(answer).toMatchObject({
      ok: false,
      problem: { type: PROBLEM_TYPES.validation, status: 400 },
    });
    expect(calls).toHaveLength(0);
  });

  it('works the same against the dev server origin in development', async () => {
    const { window, event, invoke } = setup({ kind: 'dev', url: 'http://localhost:5173/' });
    void window.loadURL('http://localhost:5173/');
    expect(await invoke('app.info', event(window.webContents.mainFrame), {})).toMatchObject({
      ok: true,
    });
  });

  const refusals: [string, (s: ReturnType<typeof setup>) => IpcMainInvokeEvent][] = [
    ['an iframe of our page', (s) => s.event(s.window.webContents.childFrame(APP_INDEX_URL))],
    [
      'our window after it navigated to another page',
      (s) => {
        s.window.webContents.mainFrame.url = 'https://evil.example/';
        return s.event(s.window.webContents.mainFrame);
      },
    ],
    [
      'the same index.html as a file:// page (app:// only)',
      (s) => {
        s.window.webContents.mainFrame.url = pathToFileURL(INDEX).href;
        return s.event(s.window.webContents.mainFrame);
      },
    ],
    [
      'another file:// page of the same app folder',
      (s) => {
        s.window.webContents.mainFrame.url = pathToFileURL(
          '/opt/splitbook/out/renderer/other.html',
        ).href;
        return s.event(s.window.webContents.mainFrame);
      },
    ],
    [
      'another window',
      (s) => {
        const other = new FakeWebContents(APP_INDEX_URL);
        return s.event(other.mainFrame, other);
      },
    ],
    ['a frame that is already gone (senderFrame null)', (s) => s.event(null)],
    [
      'any sender once our window is closed',
      (s) => {
        s.closeWindow();
        return s.event(s.window.webContents.mainFrame);
      },
    ],
  ];

  it.each(refusals)(
    'refuses %s with a 403 problem, without calling the core',
    async (_who, makeEvent) => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const s = setup();
      const answer = await s.invoke('stores.remove', makeEvent(s), { storeId: 'acme' });
      expect(answer).toMatchObject({
        ok: false,
        problem: { type: PROBLEM_TYPES.forbidden, status: 403 },
      });
      expect(s.calls).toHaveLength(0);
      warn.mockRestore();
    },
  );

  it('isTrustedSender is false for a destroyed window', () => {
    const s = setup();
    s.window.destroyed = true;
    expect(
      isTrustedSender(
        s.event(s.window.webContents.mainFrame),
        s.window as unknown as BrowserWindow,
        SOURCE,
      ),
    ).toBe(false);
  });
});

describe(`forwardEvents ${MOCKED}`, () => {
  it("sends each core event to the window's renderer on the event channel, until unsubscribed", () => {
    const { core, emit, listenerCount } = createTestCore();
    const contents = new FakeWebContents();
    const stop = forwardEvents(core, () => contents as unknown as WebContents);
    emit({
      name: 'sync.progress',
      payload: { storeId: 'acme', phase: 'tests', done: 100, total: 400 },
    });
    emit({ name: 'stores.changed', payload: {} });
    expect(contents.sent).toEqual([
      [EVENT_CHANNEL, 'sync.progress', { storeId: 'acme', phase: 'tests', done: 100, total: 400 }],
      [EVENT_CHANNEL, 'stores.changed', {}],
    ]);
    stop();
    expect(listenerCount()).toBe(0);
  });

  it('drops events while there is no window or it is being destroyed', () => {
    const { core, emit } = createTestCore();
    const contents = new FakeWebContents();
    let target: FakeWebContents | null = null;
    forwardEvents(core, () => target as unknown as WebContents | null);
    emit({ name: 'stores.changed', payload: {} });
    target = contents;
    contents.destroyed = true;
    emit({ name: 'stores.changed', payload: {} });
    expect(contents.sent).toEqual([]);
  });
});
