// Changes since each store's last review, loaded once for the sidebar's counts and the Changes view: a
// page of each store's newest lines (the counts count every line), a store shown whole when asked.
import type { ChangesReport, Resource } from '#shared/contract/index';
import { api, toProblem } from '../lib/api';
import { Loader } from '../lib/loader.svelte';
import { teamChanges } from './teamChanges.svelte';

/** What the report reads: the review memory, and the outbox that marks the user's own changes. */
export const REVIEW_READS: readonly Resource[] = ['review', 'edits'];

/** Lines of each store (and of the user's own edits) the view lists before "Show all". */
export const CHANGES_PAGE = 50;

/** The stores the user asked to see whole, kept across reloads (the report's `allLinesOf`). */
let whole: readonly string[] = [];

class Review extends Loader<null, ChangesReport> {
  /** The store whose every line is being loaded ("Show all" pressed), or null. */
  expanding = $state<string | null>(null);

  constructor() {
    super(() =>
      api.review.changes({
        storeId: null,
        since: null,
        limit: CHANGES_PAGE,
        allLinesOf: [...whole],
      }),
    );
  }

  get report(): ChangesReport | null {
    return this.data;
  }

  /** Unreviewed changes of one store (0 when unknown). */
  countFor(storeId: string): number {
    return this.report?.stores.find((s) => s.storeId === storeId)?.count ?? 0;
  }

  /** Loads every line of one store, keeping the page on screen meanwhile. */
  async showAll(storeId: string): Promise<void> {
    if (!whole.includes(storeId)) whole = [...whole, storeId];
    this.expanding = storeId;
    try {
      await this.load();
    } finally {
      this.expanding = null;
    }
  }

  /** Marks one store (or all, with null) reviewed and reloads. */
  async markReviewed(storeId: string | null): Promise<void> {
    try {
      await api.review.markReviewed({ storeId });
    } catch (error) {
      this.problem = toProblem(error);
      return;
    }
    whole = storeId === null ? [] : whole.filter((id) => id !== storeId);
    // A shared store's team section starts again from the same review.
    await Promise.all([this.load(), teamChanges.load()]);
  }
}

export const review = new Review();
