// Background syncs as the window sees them: which runs the app started by itself (the status bar shows
// them small and quiet), the page's network told to the core (offline, nothing is tried; back online,
// every store syncs), and the one signal that lets them begin: the window has painted its first rows.
import { api } from '../lib/api';
import { getBridge } from '../lib/bridge';

/** Skeletons of a list still loading: the window has not painted rows (or an empty state) yet. */
const LOADING =
  'main.span[aria-busy="true"], main.span [aria-busy="true"], .list-pane [aria-busy="true"]';

class BackgroundSyncs {
  /** Stores whose running sync the app started by itself. */
  running = $state.raw<readonly string[]>([]);
  #told = false;

  isBackground(storeId: string): boolean {
    return this.running.includes(storeId);
  }

  /**
   * Tells the core, once, that the window shows data: called when the store list has loaded; waits for
   * the list's skeletons to give way and for a frame to be painted with what replaced them.
   */
  async windowPainted(): Promise<void> {
    if (this.#told) return;
    this.#told = true;
    await new Promise<void>((resolve) => {
      const look = () => {
        if (document.querySelector(LOADING) === null) resolve();
        else requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    // The frame after the rows were laid out has been painted.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    try {
      await api.app.windowReady({});
    } catch (error) {
      // A host without background syncs, or one going away: nothing to start.
      console.warn('[splitbook] the host did not take the window’s readiness:', error);
    }
  }
}

export const background = new BackgroundSyncs();

async function tellConnectivity(online: boolean): Promise<void> {
  try {
    await api.sync.connectivity({ online });
  } catch (error) {
    console.warn('[splitbook] the host did not take the network’s state:', error);
  }
}

/** Follows background runs and the page's network; returns the unsubscribe. */
export function followBackgroundSyncs(): () => void {
  const bridge = getBridge();
  const online = () => void tellConnectivity(true);
  const offline = () => void tellConnectivity(false);
  window.addEventListener('online', online);
  window.addEventListener('offline', offline);
  if (!navigator.onLine) offline();
  const offs = [
    bridge.on('sync.started', ({ storeIds, background: started }) => {
      if (started) background.running = [...background.running, ...storeIds];
    }),
    bridge.on('sync.finished', ({ storeId }) => {
      if (background.isBackground(storeId))
        background.running = background.running.filter((id) => id !== storeId);
    }),
  ];
  return () => {
    window.removeEventListener('online', online);
    window.removeEventListener('offline', offline);
    offs.forEach((off) => off());
  };
}
