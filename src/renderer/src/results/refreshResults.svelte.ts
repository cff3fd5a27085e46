// Refresh now: one test's results fetched from its store at once, with its state per test (running, the
// last refusal, a "not found" answer), shared by the Results tab's button and the `r` shortcut.
import type { Problem } from '#shared/problem';
import { api, toProblem } from '../lib/api';
import type { TestKey } from '../lib/navigation.svelte';
import { changes } from '../lib/changes.svelte';

export type RefreshState =
  | { kind: 'running' }
  | { kind: 'failed'; problem: Problem }
  /** The store answered "not found": it has no results for this test yet. */
  | { kind: 'none' }
  | { kind: 'done'; fetchedAt: string };

const keyOf = (ref: TestKey) => `${ref.storeId}/${ref.testId}`;

class ResultsRefresh {
  #states = $state<Record<string, RefreshState>>({});
  /** The test whose Results tab is on screen: what `r` refreshes. */
  shown = $state.raw<TestKey | null>(null);

  stateOf(ref: TestKey): RefreshState | null {
    return this.#states[keyOf(ref)] ?? null;
  }

  async refresh(ref: TestKey): Promise<void> {
    const key = keyOf(ref);
    if (this.#states[key]?.kind === 'running') return;
    this.#states[key] = { kind: 'running' };
    try {
      const answer = await api.tests.refreshResults(ref);
      this.#states[key] =
        answer.found && answer.fetchedAt
          ? { kind: 'done', fetchedAt: answer.fetchedAt }
          : { kind: 'none' };
      // The core's results.changed reloads the views showing the test; this makes sure the one that asked does.
      changes.record({ name: 'results.changed', payload: ref });
    } catch (error) {
      this.#states[key] = { kind: 'failed', problem: toProblem(error) };
    }
  }

  /** A refusal the user has read (or a test left): it is not shown again. */
  dismiss(ref: TestKey) {
    const state = this.#states[keyOf(ref)];
    if (state && state.kind !== 'running') delete this.#states[keyOf(ref)];
  }
}

export const resultsRefresh = new ResultsRefresh();
