// Each store's dated annotations ("Black Friday promo"), loaded on first use and shared by the editor and the charts.
import type { Annotation } from '#shared/contract/index';
import { api, toProblem } from '../lib/api';
import type { Problem } from '#shared/problem';

class Annotations {
  #byStore = $state<Record<string, Annotation[]>>({});
  #loading = new Set<string>();
  problem = $state.raw<Problem | null>(null);

  /** The store's annotations; the first call loads them (an empty list until then). */
  forStore(storeId: string): Annotation[] {
    const known = this.#byStore[storeId];
    if (known === undefined && !this.#loading.has(storeId)) void this.load(storeId);
    return known ?? [];
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
