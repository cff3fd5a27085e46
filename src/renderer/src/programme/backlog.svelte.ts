// The backlog as the Backlog view shows it: the ideas of the scope ranked by the chosen score, its filters,
// and an idea's impact, effort, priority or tags edited in place (sent through the outbox like any edit).
import type { Backlog, BacklogRow, BacklogScore } from '#shared/contract/index';
import type { Problem } from '#shared/problem';
import { api } from '../lib/api';
import { LatestAnswer } from '../lib/latestAnswer';
import { edits } from '../edits/edits.svelte';
import type { InlineField } from './backlogCells';

export type BacklogFilters = {
  tag: string | null;
  surfaceArea: string | null;
  goal: string | null;
};
export const NO_FILTERS: BacklogFilters = { tag: null, surfaceArea: null, goal: null };

const SCORE_KEY = 'splitbook.backlog.score';

function rememberedScore(): BacklogScore {
  const saved = localStorage.getItem(SCORE_KEY);
  return saved === 'impact-minus-effort' || saved === 'impact' ? saved : 'impact-per-effort';
}

class BacklogState {
  backlog = $state.raw<Backlog | null>(null);
  /** True until the first answer for the current scope and filters. */
  loading = $state(true);
  problem = $state.raw<Problem | null>(null);
  score = $state<BacklogScore>(rememberedScore());
  filters = $state<BacklogFilters>({ ...NO_FILTERS });

  #key: string | null = null;
  #scope: string | null = null;
  readonly #latest = new LatestAnswer();

  /** Loads when the scope, the score or a filter changed (skeletons), or the data changed (rows stay). */
  follow(scope: string | null, version: number) {
    const asked = JSON.stringify([scope, this.score, this.filters]);
    const key = JSON.stringify([asked, version]);
    if (key === this.#key) return;
    const previous = this.#key === null ? null : (JSON.parse(this.#key) as [string, number])[0];
    if (previous !== asked) {
      this.loading = true;
      this.backlog = null;
    }
    this.#key = key;
    this.#scope = scope;
    void this.load();
  }

  setScore(score: BacklogScore) {
    this.score = score;
    localStorage.setItem(SCORE_KEY, score);
  }

  async load() {
    const asked = { storeId: this.#scope, score: this.score, ...this.filters };
    await this.#latest.ask(() => api.programme.backlog(asked), {
      answer: (backlog) => {
        this.backlog = backlog;
        this.problem = null;
      },
      problem: (problem) => (this.problem = problem),
      settled: () => (this.loading = false),
    });
  }

  /** Sends one field's new value through the outbox, then shows the backlog as it now ranks. */
  async edit(row: BacklogRow, field: InlineField, value: number | string | string[] | null) {
    await api.edits.editTest({
      storeId: row.storeId,
      testId: row.testId,
      changes: { [field]: value },
    });
    await Promise.all([this.load(), edits.refresh()]);
    // The edit's own change event may start a load that replaces this one's answer: wait for the last,
    // so the rows are ranked as the edit left them when the caller looks (and focuses the field edited).
    await this.#latest.settled();
  }
}

export const backlog = new BacklogState();
