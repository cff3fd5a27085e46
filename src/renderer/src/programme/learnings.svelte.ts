// What concluded tests taught, as the Learnings view shows it: the scope's figures over a period (the last
// 90 days unless changed), reloaded when calls may have changed, and a takeaway saved in place.
import type { ConcludedTestRow, Learnings } from '#shared/contract/index';
import type { Problem } from '#shared/problem';
import { api } from '../lib/api';
import { LatestAnswer } from '../lib/latestAnswer';
import { lastDays, periodProblem } from '../lib/period';

export const PRESETS = [
  { id: '30d', label: '30 days', days: 30 },
  { id: '90d', label: '90 days', days: 90 },
  { id: '12m', label: '12 months', days: 365 },
  { id: 'all', label: 'All time', days: null },
] as const;
export type PresetId = (typeof PRESETS)[number]['id'];
export const DEFAULT_PRESET: PresetId = '90d';

class LearningsState {
  learnings = $state.raw<Learnings | null>(null);
  /** True until the first answer for the current scope and period. */
  loading = $state(true);
  problem = $state.raw<Problem | null>(null);
  /** 'YYYY-MM-DD' or '' (open-ended); the preset that set them, or null once typed by hand. */
  since = $state(lastDays(90).since);
  until = $state(lastDays(90).until);
  preset = $state<PresetId | null>(DEFAULT_PRESET);

  #key: string | null = null;
  readonly #latest = new LatestAnswer();
  #asked: { storeId: string | null; since: string | null; until: string | null } = {
    storeId: null,
    since: null,
    until: null,
  };

  /** Why the period typed cannot be asked for, or null. */
  get periodProblem(): string | null {
    return periodProblem(this.since, this.until);
  }

  usePreset(id: PresetId) {
    const preset = PRESETS.find((p) => p.id === id);
    if (!preset) return;
    this.preset = id;
    if (preset.days === null) {
      this.since = '';
      this.until = '';
    } else {
      const period = lastDays(preset.days);
      this.since = period.since;
      this.until = period.until;
    }
  }

  /** Loads when the scope or the period changed (skeletons), or the calls changed (figures stay). */
  follow(scope: string | null, since: string, until: string, version: number) {
    if (periodProblem(since, until) !== null) return;
    const asked = JSON.stringify([scope, since, until]);
    const key = JSON.stringify([asked, version]);
    if (key === this.#key) return;
    const previous = this.#key === null ? null : (JSON.parse(this.#key) as [string, number])[0];
    if (previous !== asked) {
      this.loading = true;
      this.learnings = null;
    }
    this.#key = key;
    this.#asked = {
      storeId: scope,
      since: since === '' ? null : since,
      until: until === '' ? null : until,
    };
    void this.load();
  }

  async load() {
    await this.#latest.ask(() => api.programme.learnings({ ...this.#asked }), {
      answer: (learnings) => {
        this.learnings = learnings;
        this.problem = null;
      },
      problem: (problem) => (this.problem = problem),
      settled: () => (this.loading = false),
    });
  }

  /** Saves a test's takeaway and shows it at once (the rest of the figures do not move with it). */
  async setTakeaway(row: ConcludedTestRow, text: string): Promise<void> {
    const saved = await api.programme.setTakeaway({
      storeId: row.storeId,
      testId: row.testId,
      text,
    });
    const current = this.learnings;
    if (!current) return;
    this.learnings = {
      ...current,
      tests: current.tests.map((t) =>
        t.storeId === row.storeId && t.testId === row.testId
          ? { ...t, takeaway: saved.text, takeawayUpdatedAt: saved.updatedAt }
          : t,
      ),
    };
  }
}

export const learnings = new LearningsState();
