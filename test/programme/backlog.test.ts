// The backlog of two stores synced from the simulator: every test never launched and nothing else, ranked
// by the chosen score as the domain ranks them, the planner's days at each store's traffic, the filters
// and their counts, and an inline edit made offline showing at once, marked as waiting to be sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLaunched } from '#shared/domain/lifecycle';
import {
  BACKLOG_SCORES,
  backlogScore,
  rankBacklog,
  SCORE_NOTE,
  SCORE_WORDS,
  type BacklogScore,
} from '#shared/domain/programme/index';
import type { Backlog, BacklogInput } from '#shared/contract/index';
import { ProblemError } from '#shared/problem';
import { detailedTests, syncedProgramme, type Detailed, type SyncedProgramme } from './support';

let programme: SyncedProgramme;
let details: Detailed[] = [];
let ideas: Detailed[] = [];

const backlog = (input: Partial<BacklogInput> = {}): Promise<Backlog> =>
  programme.core.services.programme.backlog({
    storeId: null,
    score: 'impact-per-effort',
    tag: null,
    surfaceArea: null,
    goal: null,
    ...input,
  });

const scorable = (d: Detailed) => ({
  title: d.test.title,
  impact: d.test.impact,
  effort: d.test.effort,
  priority: d.test.priority,
  id: d.test.id,
});

beforeAll(async () => {
  // Edits wait in the outbox (as offline), so the backlog shows them before any store confirms them.
  programme = await syncedProgramme('splitbook-backlog-', { pushOnEdit: false });
  details = await detailedTests(programme.core, Object.values(programme.ids));
  ideas = details.filter((d) => !isLaunched(d.test.status));
}, 120_000);

afterAll(async () => programme?.close());

describe('the backlog', { timeout: 60_000 }, () => {
  it('holds every test never launched (draft, scheduled, incompatible) of every store, and nothing else', async () => {
    const list = await backlog();
    expect(ideas.length).toBeGreaterThan(10);
    expect(list.rows.map((r) => `${r.storeId}/${r.testId}`).sort()).toEqual(
      ideas.map((d) => `${d.storeId}/${d.test.id}`).sort(),
    );
    expect(list.total).toBe(ideas.length);
    for (const row of list.rows) {
      const d = ideas.find((i) => i.storeId === row.storeId && i.test.id === row.testId);
      expect(row).toMatchObject({
        title: d?.test.title,
        status: d?.test.status,
        stage: d?.test.stage,
        goal: d?.test.goal,
        tags: d?.test.tags.map((t) => t.name),
        tagIds: d?.test.tags.map((t) => t.id),
        surfaceArea: d?.test.surfaceArea,
        priority: d?.test.priority,
        impact: d?.test.impact,
        effort: d?.test.effort,
        storeName: d?.storeName,
        pendingFields: [],
      });
    }
  });

  it('ranks by each score exactly as the domain does, says the score in words and that the scale is the store’s own', async () => {
    for (const score of BACKLOG_SCORES) {
      const list = await backlog({ score });
      const expected = rankBacklog(ideas.map(scorable), score as BacklogScore);
      expect(list.rows.map((r) => r.testId)).toEqual(expected.map((e) => e.id));
      expect(list.rows.map((r) => r.rank)).toEqual(list.rows.map((_, i) => i + 1));
      for (const row of list.rows) expect(row.score).toBe(backlogScore(row, score));
      expect(list).toMatchObject({ score, words: SCORE_WORDS[score], note: SCORE_NOTE });
      expect(list.note).toMatch(/scale is the store's own/);
    }
    const byDefault = await backlog();
    expect(byDefault.words).toBe('impact ÷ effort');
    expect(byDefault.scores.map((s) => s.value)).toEqual([...BACKLOG_SCORES]);
    // Unscored ideas come last.
    const firstUnscored = byDefault.rows.findIndex((r) => r.score === null);
    expect(firstUnscored).toBeGreaterThan(0);
    expect(byDefault.rows.slice(firstUnscored).every((r) => r.score === null)).toBe(true);
  });

  it('gives each idea the planner’s days for its goal at its store’s traffic', async () => {
    const list = await backlog();
    const estimates = new Map<string, { days: number | null; text: string } | null>();
    for (const row of list.rows) {
      const key = `${row.storeId}/${row.goal}`;
      if (!estimates.has(key)) {
        const estimate = await programme.core.services.decisions.planner({
          storeId: row.storeId,
          goal: row.goal,
          minEffect: null,
        });
        estimates.set(key, estimate === null ? null : { days: estimate.days, text: estimate.text });
      }
      const estimate = estimates.get(key) ?? null;
      if (estimate === null) {
        expect(row.plannerDays).toBeNull();
        expect(row.plannerText).not.toBe('');
      } else {
        expect({ days: row.plannerDays, text: row.plannerText }).toEqual(estimate);
      }
      // Flagged when the days are more than the longest wait (issue 44, item 11: "~3 years" unflagged).
      const view = await programme.core.services.decisions.settings({});
      const longestWaitDays =
        view.stores.find((s) => s.storeId === row.storeId)?.effective.longestWaitDays ?? NaN;
      expect(row.plannerTooLong).toBe(
        row.plannerDays !== null && row.plannerDays > longestWaitDays,
      );
    }
    expect(list.rows.some((r) => r.plannerDays !== null)).toBe(true);
    expect(list.rows.some((r) => r.plannerTooLong)).toBe(true);
  });

  it('filters by store, tag (any case), surface area and goal, with the counts of each choice', async () => {
    const all = await backlog();
    const acme = programme.ids['Acme'] ?? '';
    const one = await backlog({ storeId: acme });
    expect(one.rows.every((r) => r.storeId === acme)).toBe(true);
    expect(one.total).toBe(ideas.filter((d) => d.storeId === acme).length);
    expect(one.facets.stores.find((s) => s.key === acme)?.count).toBe(one.total);
    expect(all.facets.stores.reduce((sum, s) => sum + s.count, 0)).toBe(all.total);

    const tag = all.facets.tags[0];
    expect(tag).toBeDefined();
    const tagged = await backlog({ tag: (tag?.key ?? '').toUpperCase() });
    expect(tagged.rows.length).toBe(tag?.count);
    expect(
      tagged.rows.every((r) => r.tags.some((t) => t.toLowerCase() === tag?.key.toLowerCase())),
    ).toBe(true);
    expect(tagged.total).toBe(all.total);
    expect(tagged.facets).toEqual(all.facets);

    const surface = all.facets.surfaceAreas[0];
    const bySurface = await backlog({ surfaceArea: surface?.key ?? '' });
    expect(bySurface.rows.length).toBe(surface?.count);
    expect(bySurface.rows.every((r) => r.surfaceArea === surface?.key)).toBe(true);

    const goal = all.facets.goals[0];
    const byGoal = await backlog({ goal: goal?.key ?? '' });
    expect(byGoal.rows.length).toBe(goal?.count);
    expect(byGoal.rows.every((r) => r.goal === goal?.key)).toBe(true);
    // Filtered rows keep the ranking of the whole list.
    const order = all.rows.map((r) => r.testId);
    const positions = byGoal.rows.map((r) => order.indexOf(r.testId));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('shows an inline edit at once, offline, marked as waiting to be sent, and ranks it again', async () => {
    const before = await backlog();
    const last = [...before.rows].reverse().find((r) => r.status === 'draft');
    expect(last).toBeDefined();
    if (!last) return;
    await programme.core.services.edits.editTest({
      storeId: last.storeId,
      testId: last.testId,
      changes: { impact: 5, effort: 1, priority: 'high' },
    });
    const after = await backlog();
    const edited = after.rows.find((r) => r.testId === last.testId);
    expect(edited).toMatchObject({ impact: 5, effort: 1, priority: 'high', score: 5 });
    expect(edited?.pendingFields).toEqual(['effort', 'impact', 'priority']);
    expect(edited?.rank).toBeLessThan(last.rank);
    const pending = await programme.core.services.edits.list({ storeId: last.storeId });
    expect(pending.some((p) => p.recordId === last.testId && p.state === 'queued')).toBe(true);
  });

  it('refuses a store that does not exist', async () => {
    await expect(backlog({ storeId: 'no-such-store' })).rejects.toBeInstanceOf(ProblemError);
  });
});
