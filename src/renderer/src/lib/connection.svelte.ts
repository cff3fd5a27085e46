// Whether this window can reach the Splitbook host serving it, as state a view can show (the browser
// host only: in Electron the window and the core are one app). The bridge tells each change.
import { onHostReachable } from './bridge';

class Connection {
  /** The host could not be reached (a call failed to go out, or the event stream broke). */
  lost = $state(false);
  /** When it was lost (ms), for "since 2:40 PM". */
  since = $state<number | null>(null);

  follow(): () => void {
    return onHostReachable((reachable) => {
      this.lost = !reachable;
      this.since = reachable ? null : Date.now();
    });
  }
}

export const connection = new Connection();
