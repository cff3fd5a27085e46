// The Electron side of background syncs (hosts/electron/background.ts): the network and the machine's sleep
// reach the core, and "ready for a call" is one desktop notification whose click brings the window forward
// on the Decisions view; the window is not sent what the notification showed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DecisionsReady } from '#shared/contract/index';
import { EVENT_CHANNEL } from '#shared/channels';
import { forwardEvents } from '../../src/main/hosts/electron/ipc';
import {
  followMachine,
  notifyReadyCalls,
  ONLINE_POLL_MS,
} from '../../src/main/hosts/electron/background';
import { FakeWebContents, MOCKED, Notification, net, powerMonitor } from './support/fake-electron';
import { createTestCore } from './support/test-core';

vi.mock('electron', async () => import('./support/fake-electron'));

const READY: DecisionsReady = {
  storeId: 'store-1',
  storeName: 'Acme',
  count: 2,
  tests: [
    { testId: 't1', title: 'Free shipping bar', call: 'ship', words: 'Ship the variant' },
    { testId: 't2', title: 'Trust badges', call: 'check_data', words: 'Check the data first' },
  ],
};

describe(`the machine and the network ${MOCKED}`, () => {
  beforeEach(() => {
    vi.useFakeTimers();
    net.online = true;
    powerMonitor.removeAllListeners();
  });
  afterEach(() => vi.useRealTimers());

  it('reports the network at start and each time net.isOnline() changes, and a wake from sleep', () => {
    const { core, background } = createTestCore();
    const stop = followMachine(core, { net, powerMonitor });
    expect(background).toEqual(['online']);

    net.online = false;
    vi.advanceTimersByTime(ONLINE_POLL_MS);
    vi.advanceTimersByTime(ONLINE_POLL_MS * 10);
    expect(background).toEqual(['online', 'offline']);

    // Woken with the network already back: it is said first, then the wake.
    net.online = true;
    powerMonitor.emit('resume');
    expect(background).toEqual(['online', 'offline', 'online', 'wake']);
    stop();
    net.online = false;
    vi.advanceTimersByTime(ONLINE_POLL_MS * 3);
    expect(background).toHaveLength(4);
  });
});

describe(`ready for a call ${MOCKED}`, () => {
  beforeEach(() => {
    Notification.shown = [];
    Notification.supported = true;
  });

  it('shows one desktop notification per sync; its click focuses the window and opens the Decisions view', () => {
    const { core, emit } = createTestCore();
    const contents = new FakeWebContents();
    const focus = vi.fn();
    const notices = notifyReadyCalls(core, {
      Notification,
      focusWindow: focus,
      send: (name, payload) => contents.send(EVENT_CHANNEL, name, payload),
    });
    forwardEvents(core, () => contents as never, notices.shownHere);

    emit({ name: 'decisions.ready', payload: READY });
    expect(Notification.shown).toHaveLength(1);
    expect(Notification.shown[0]?.options).toEqual({
      title: 'Acme: 2 tests ready for a call',
      body: 'Free shipping bar — Ship the variant\nTrust badges — Check the data first',
    });
    // The window does not get it as well (it would show a toast too); other events still go.
    expect(contents.sent).toEqual([]);
    emit({ name: 'decisions.news', payload: { count: 2, byStore: { 'store-1': 2 } } });
    expect(contents.sent).toHaveLength(1);

    Notification.shown[0]?.emit('click');
    expect(focus).toHaveBeenCalledOnce();
    expect(contents.sent.at(-1)).toEqual([
      EVENT_CHANNEL,
      'decisions.open',
      { storeId: 'store-1', testId: null },
    ]);
  });

  it('opens the test itself when the notice names one, and leaves the notice to the window where the system has none', () => {
    const { core, emit } = createTestCore();
    const contents = new FakeWebContents();
    const notices = notifyReadyCalls(core, {
      Notification,
      focusWindow: () => undefined,
      send: (name, payload) => contents.send(EVENT_CHANNEL, name, payload),
    });
    forwardEvents(core, () => contents as never, notices.shownHere);
    const one = { ...READY, count: 1, tests: READY.tests.slice(0, 1) };
    emit({ name: 'decisions.ready', payload: one });
    expect(Notification.shown[0]?.options.title).toBe('Acme: 1 test ready for a call');
    Notification.shown[0]?.emit('click');
    expect(contents.sent).toEqual([
      [EVENT_CHANNEL, 'decisions.open', { storeId: 'store-1', testId: 't1' }],
    ]);

    Notification.supported = false;
    emit({ name: 'decisions.ready', payload: READY });
    expect(Notification.shown).toHaveLength(1);
    expect(contents.sent.at(-1)).toEqual([EVENT_CHANNEL, 'decisions.ready', READY]);
  });
});
