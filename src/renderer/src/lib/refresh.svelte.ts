// A version number that goes up when cached data may have changed (a sync finished, a store changed,
// or a running sync wrote more). Views reload what they show when it changes, keeping selection and scroll.
const SETTLE_MS = 250;
/** While a sync runs, what it has written so far shows at this pace. */
const WHILE_SYNCING_MS = 2000;

class DataVersion {
  value = $state(0);
  /**
   * Whether the last bump came only from a running sync's progress: views may then reload just what
   * is on screen (the test list does); a sync's end or any other change asks for a whole refresh.
   */
  whileSyncing = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #last = 0;
  #wholeWanted = false;

  /** Soon: a burst of events makes one refresh. */
  bump() {
    this.#wholeWanted = true;
    this.#schedule();
  }

  /** For progress events: a refresh only if the last one is a while ago. Says whether one was asked for. */
  bumpWhileSyncing(): boolean {
    if (this.#timer || Date.now() - this.#last < WHILE_SYNCING_MS) return false;
    this.#schedule();
    return true;
  }

  #schedule() {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#last = Date.now();
      this.whileSyncing = !this.#wholeWanted;
      this.#wholeWanted = false;
      this.value += 1;
    }, SETTLE_MS);
  }
}

export const dataVersion = new DataVersion();
