// Changes since each store's last review, loaded once for the sidebar's counts and the Changes view.
import type { ChangesReport } from '../../../shared/contract';
import type { Problem } from '../../../shared/problem';
import { api, toProblem } from '../lib/api';

class Review {
  report = $state.raw<ChangesReport | null>(null);
  problem = $state.raw<Problem | null>(null);
  #generation = 0;

  /** Unreviewed changes of one store (0 when unknown). */
  countFor(storeId: string): number {
    return this.report?.stores.find((s) => s.storeId === storeId)?.count ?? 0;
  }

  async refresh(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const report = await api.review.changes({ storeId: null, since: null });
      if (generation !== this.#generation) return;
      this.report = report;
      this.problem = null;
    } catch (error) {
      if (generation === this.#generation) this.problem = toProblem(error);
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
    await this.refresh();
  }
}

export const review = new Review();
