// What a view shows, loaded for a key (a store, a test) and reloaded when its data changed: data, loading
// and a problem in one place, so answers for a key left behind are dropped and an error is shown, never lost.
import type { Problem } from '#shared/problem';
import { LatestAnswer } from './latestAnswer';

export class Loader<K, T> {
  /** The last answer for the current key; null until one came (or after the key changed). */
  data = $state.raw<T | null>(null);
  /** True until the first answer (or error) for the current key. */
  loading = $state(true);
  /** Why the last load failed; the data of an earlier load stays beside it. */
  problem = $state.raw<Problem | null>(null);

  readonly #fetch: (key: K) => Promise<T>;
  /** What `follow` asked for last: the key, its identity as text, the data's version. */
  #current: { key: K; id: string; version: number } | null = null;
  readonly #latest = new LatestAnswer();

  constructor(fetch: (key: K) => Promise<T>) {
    this.#fetch = fetch;
  }

  /**
   * Called from a view's `$effect` with what it shows and the version of its data: a new key loads
   * from nothing (skeletons), a new version reloads keeping the data on screen, else nothing happens.
   */
  follow(key: K, version: number) {
    const id = JSON.stringify(key);
    const before = this.#current;
    if (id === before?.id && version === before.version) return;
    if (id !== before?.id) {
      this.data = null;
      this.problem = null;
      this.loading = true;
    }
    this.#current = { key, id, version };
    void this.load();
  }

  /** Loads the current key again (Retry). */
  async load(): Promise<void> {
    if (this.#current === null) return;
    const { key } = this.#current;
    await this.#latest.ask(() => this.#fetch(key), {
      answer: (data) => {
        this.data = data;
        this.problem = null;
      },
      problem: (problem) => (this.problem = problem),
      settled: () => (this.loading = false),
    });
  }
}
