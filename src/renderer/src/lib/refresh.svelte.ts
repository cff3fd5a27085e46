// A version number that goes up when cached data may have changed (a sync finished, a store changed,
// or a running sync wrote more). Views reload what they show when it changes, keeping selection and scroll.
const SETTLE_MS = 250;
/** While a sync runs, what it has written so far shows at this pace. */
const WHILE_SYNCING_MS = 2000;

class DataVersion {
  value = $state(0);
  #timer: ReturnType<typeof setTimeout> | null = null;
  #last = 0;

  /** Soon: a burst of events makes one refresh. */
  bump() {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#last = Date.now();
      this.value += 1;
    }, SETTLE_MS);
  }

  /** For progress events: a refresh only if the last one is a while ago. Says whether one was asked for. */
  bumpWhileSyncing(): boolean {
    if (this.#timer || Date.now() - this.#last < WHILE_SYNCING_MS) return false;
    this.bump();
    return true;
  }
}

export const dataVersion = new DataVersion();
