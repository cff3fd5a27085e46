// Each store's dated annotations ("Black Friday promo"), loaded on first use and shared by the editor and the charts.
import type { Annotation } from '#shared/contract/index';
import { api, toProblem } from '../lib/api';
import { getBridge } from '../lib/bridge';
import type { Problem } from '#shared/problem';

class Annotations {
  #byStore = $state<Record<string, Annotation[]>>({});
  #loading = new Set<string>();
  problem = $state.raw<Problem | null>(null);
  #following = false;

  /** The store's annotations; the first call loads them (an empty list until then). */
  forStore(storeId: string): Annotation[] {
    this.#follow();
    const known = this.#byStore[storeId];
    if (known === undefined && !this.#loading.has(storeId)) void this.load(storeId);
    return known ?? [];
  }

  /** A shared store's annotations change with the team's (a store-wide `team.changed`): loaded again. */
  #follow(): void {
    if (this.#following) return;
    this.#following = true;
    getBridge().on('team.changed', ({ storeId, testIds }) => {
      if (testIds === null && this.#byStore[storeId] !== undefined) void this.load(storeId);
    });
  }

  async load(storeId: string): Promise<void> {
    this.#loading.add(storeId);
    try {
      this.#byStore[storeId] = await api.notes.annotations({ storeId });
      this.problem = null;
    } catch (error) {
      this.problem = toProblem(error);
    } finally {
      this.#loading.delete(storeId);
    }
  }

  async add(storeId: string, day: string, label: string): Promise<boolean> {
    try {
      await api.notes.addAnnotation({ storeId, day, label });
    } catch (error) {
      this.problem = toProblem(error);
      return false;
    }
    await this.load(storeId);
    return true;
  }

  async remove(storeId: string, id: number): Promise<void> {
    try {
      await api.notes.removeAnnotation({ storeId, id });
    } catch (error) {
      this.problem = toProblem(error);
    }
    await this.load(storeId);
  }
}

export const annotations = new Annotations();
