// Changes since each store's last review, loaded once for the sidebar's counts and the Changes view.
import type { ChangesReport, Resource } from '#shared/contract/index';
import { api, toProblem } from '../lib/api';
import { Loader } from '../lib/loader.svelte';

/** What the report reads: the review memory, and the outbox that marks the user's own changes. */
export const REVIEW_READS: readonly Resource[] = ['review', 'edits'];

class Review extends Loader<null, ChangesReport> {
  constructor() {
    super(() => api.review.changes({ storeId: null, since: null }));
  }

  get report(): ChangesReport | null {
    return this.data;
  }

  /** Unreviewed changes of one store (0 when unknown). */
  countFor(storeId: string): number {
    return this.report?.stores.find((s) => s.storeId === storeId)?.count ?? 0;
  }

  /** Marks one store (or all, with null) reviewed and reloads. */
  async markReviewed(storeId: string | null): Promise<void> {
    try {
      await api.review.markReviewed({ storeId });
    } catch (error) {
      this.problem = toProblem(error);
      return;
    }
    await this.load();
  }
}

export const review = new Review();
