// A version number that goes up when cached data may have changed (a sync finished, a store changed).
// Views reload what they show when it changes, keeping their selection and scroll position.
const SETTLE_MS = 250;

class DataVersion {
  value = $state(0);
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** Coalesces bursts of events into one refresh. */
  bump() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.value += 1;
    }, SETTLE_MS);
  }
}

export const dataVersion = new DataVersion();
