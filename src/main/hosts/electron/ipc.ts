// The IPC side of the bridge: one handler per contract method, all through one wrapper that checks the sender.
import type { BrowserWindow, IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { Core } from '#core/index';
import { CHANNELS, type CoreEvent } from '#shared/contract/index';
import { EVENT_CHANNEL, type ChannelEventName } from '#shared/channels';
import { appProblem, type Envelope } from '#shared/problem';
import { dispatch } from '../common/dispatch';
import { isAppUrl, type RendererSource } from './renderer-source';

export interface HandlerOptions {
  /** The one window allowed to call; null while there is none. */
  window: () => BrowserWindow | null;
  source: RendererSource;
}

/**
 * A call is trusted only from the main frame of our window while it shows our page: not from an
 * iframe, not from another window, not after a navigation elsewhere.
 */
export function isTrustedSender(
  event: IpcMainInvokeEvent,
  window: BrowserWindow | null,
  source: RendererSource,
): boolean {
  const frame = event.senderFrame;
  if (!window || window.isDestroyed() || !frame) return false;
  const main = window.webContents.mainFrame;
  return (
    event.sender.id === window.webContents.id &&
    frame.parent === null &&
    frame.processId === main.processId &&
    frame.routingId === main.routingId &&
    isAppUrl(source, frame.url)
  );
}

const REFUSED: Envelope<never> = {
  ok: false,
  problem: appProblem(
    'forbidden',
    403,
    'Call refused',
    'Only the Splitbook window may call the app.',
  ),
};

/** Registers every contract channel on ipcMain; returns a function that removes them again. */
export function registerHandlers(
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>,
  core: Core,
  options: HandlerOptions,
): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(channel, async (event, input: unknown): Promise<Envelope<unknown>> => {
      if (!isTrustedSender(event, options.window(), options.source)) {
        console.warn(
          `[splitbook] refused ${channel} from ${event.senderFrame?.url ?? 'a closed frame'}`,
        );
        return REFUSED;
      }
      return dispatch(core, channel, input);
    });
  }
  return () => {
    for (const channel of CHANNELS) ipcMain.removeHandler(channel);
  };
}

/** Sends one event to the renderer, unless its window is gone. */
export function sendEvent(
  contents: WebContents | null,
  event: ChannelEventName,
  payload: unknown,
): void {
  if (contents && !contents.isDestroyed()) contents.send(EVENT_CHANNEL, event, payload);
}

/** Forwards every core event to the window's renderer, but those `handled` here; returns the unsubscribe. */
export function forwardEvents(
  core: Core,
  contents: () => WebContents | null,
  handled: (event: CoreEvent) => boolean = () => false,
): () => void {
  return core.subscribe((event) => {
    if (!handled(event)) sendEvent(contents(), event.name, event.payload);
  });
}
