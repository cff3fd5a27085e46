// The backlog across stores: tests never launched (drafts, scheduled, incompatible), ranked by the score
// the user chose (shared/domain/programme), each with the planner's days at its store's traffic and the
// fields whose edits wait in the outbox (the cache's row already shows them).
import { Test } from '#shared/api/index';
import {
  TestFilter,
  type Backlog,
  type BacklogInput,
  type BacklogRow,
  type ProgrammeFacet,
} from '#shared/contract/index';
import { NOT_LAUNCHED_STATUSES } from '#shared/domain/lifecycle';
import { metricOfGoal } from '#shared/domain/metrics';
import {
  BACKLOG_SCORES,
  rankBacklog,
  SCORE_NOTE,
  SCORE_WORDS,
  type BacklogScore,
} from '#shared/domain/programme/index';
import { listStoreRows } from '../db/cache/stores';
import { noteKey } from '../db/user/notes';
import { storeBasis } from '../decisions/basis';
import type { Db } from '../db/types';
import { outboxRows } from '../db/user/outbox';
import { backlogRows, type BacklogDbRow } from '../db/cache/programme';
import { plannerAt, storeTraffic, type StoreTraffic } from '../decisions/store-traffic';

export type BacklogItem = Omit<BacklogRow, 'score' | 'rank'>;

type Row = BacklogDbRow;

/** The ideas `filter` keeps (its statuses narrowed to those never launched), in the store list's order. */
export function backlogItems(db: Db, filter: TestFilter): BacklogItem[] {
  const rows = backlogRows(db, filter, NOT_LAUNCHED_STATUSES);
  const pending = pendingFields(db, filter.storeId);
  const planners = new Map<string, Planner>();
  return rows.map((row) => {
    const planner = planners.get(row.storeId) ?? plannerOf(db, row.storeId);
    planners.set(row.storeId, planner);
    const estimate = planner.estimate(row.goal);
    const tags = tagsOf(row);
    return {
      storeId: row.storeId,
      storeName: row.storeName,
      testId: row.testId,
      title: row.title,
      status: row.status,
      stage: row.stage,
      goal: row.goal,
      tags: tags.names,
      tagIds: tags.ids,
      surfaceArea: row.surfaceArea,
      priority: row.priority,
      impact: row.impact,
      effort: row.effort,
      plannerDays: estimate.days,
      plannerText: estimate.text,
      plannerTooLong: estimate.tooLong,
      pendingFields: [...(pending.get(noteKey(row.storeId, row.testId)) ?? [])].sort(),
      updatedAt: row.updatedAt,
    };
  });
}

/** Ranked by `score`: highest first, ties by priority then title, unscored last; each with its place. */
export function rankedBacklog(items: readonly BacklogItem[], score: BacklogScore): BacklogRow[] {
  return rankBacklog(items, score).map((item, i) => ({ ...item, rank: i + 1 }));
}

/** The backlog view: the store scope's ideas ranked, the filters applied, and the filters' choices. */
export function backlog(db: Db, input: BacklogInput): Backlog {
  const everyStore = backlogItems(db, TestFilter.parse({}));
  const inScope = everyStore.filter(
    (item) => input.storeId === null || item.storeId === input.storeId,
  );
  const tag = input.tag?.toLowerCase() ?? null;
  const kept = inScope.filter(
    (item) =>
      (tag === null || item.tags.some((name) => name.toLowerCase() === tag)) &&
      (input.surfaceArea === null || item.surfaceArea === input.surfaceArea) &&
      (input.goal === null || item.goal === input.goal),
  );
  const counts = new Map<string, number>();
  for (const item of everyStore) counts.set(item.storeId, (counts.get(item.storeId) ?? 0) + 1);
  return {
    score: input.score,
    words: SCORE_WORDS[input.score],
    note: SCORE_NOTE,
    scores: BACKLOG_SCORES.map((value) => ({ value, words: SCORE_WORDS[value] })),
    rows: rankedBacklog(kept, input.score),
    total: inScope.length,
    facets: {
      stores: listStoreRows(db).map((store) => ({
        key: store.id,
        label: store.name,
        count: counts.get(store.id) ?? 0,
      })),
      tags: facet(inScope.flatMap((item) => item.tags)),
      surfaceAreas: facet(
        inScope.flatMap((item) => (item.surfaceArea === null ? [] : [item.surfaceArea])),
      ),
      goals: facet(
        inScope.map((item) => item.goal),
        (goal) => metricOfGoal(goal)?.label ?? goal,
      ),
    },
  };
}

/** Values with their counts, most frequent first; tags that differ only in case count as one. */
function facet(
  values: readonly string[],
  label: (key: string) => string = (key) => key,
): ProgrammeFacet[] {
  const counts = new Map<string, { key: string; count: number }>();
  for (const value of values) {
    const id = value.toLowerCase();
    const entry = counts.get(id) ?? { key: value, count: 0 };
    entry.count += 1;
    counts.set(id, entry);
  }
  return [...counts.values()]
    .map(({ key, count }) => ({ key, label: label(key), count }))
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
}

/** Tag names and ids in the record's order; the row's names alone when the record no longer parses. */
function tagsOf(row: Row): { names: string[]; ids: string[] } {
  try {
    const tags = Test.shape.tags.safeParse((JSON.parse(row.rawJson) as { tags?: unknown }).tags);
    if (tags.success)
      return { names: tags.data.map((t) => t.name), ids: tags.data.map((t) => t.id) };
  } catch {
    // fall through to the row's names
  }
  const names = JSON.parse(row.tagNames) as unknown;
  return {
    names: Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [],
    ids: [],
  };
}

/** The fields of each test with edits the store has not confirmed, keyed by noteKey. */
function pendingFields(db: Db, storeId: string | null): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const row of outboxRows(db, storeId)) {
    if (row.kind !== 'test') continue;
    const key = noteKey(row.storeId, row.recordId);
    const fields = out.get(key) ?? new Set<string>();
    for (const field of Object.keys(row.changes)) fields.add(field);
    out.set(key, fields);
  }
  return out;
}

type Estimate = { days: number | null; text: string; tooLong: boolean };
type Planner = { estimate(goal: string): Estimate };

/** A store's planner: its traffic read once, each goal's estimate made once. */
function plannerOf(db: Db, storeId: string): Planner {
  let traffic: StoreTraffic | null | undefined;
  const settings = storeBasis(db, storeId).settings;
  const byGoal = new Map<string, Estimate>();
  return {
    estimate(goal) {
      const known = byGoal.get(goal);
      if (known) return known;
      if (traffic === undefined) traffic = storeTraffic(db, storeId);
      const estimate = plannerAt(traffic, goal, settings);
      const result: Estimate =
        estimate !== null
          ? {
              days: estimate.days,
              text: estimate.text,
              tooLong: estimate.days !== null && estimate.days > settings.longestWaitDays,
            }
          : metricOfGoal(goal) === null
            ? {
                days: null,
                text: `Splitbook does not know the goal "${goal}", so it cannot plan for it.`,
                tooLong: false,
              }
            : {
                days: null,
                text: 'No test of this store has recent daily data to plan by.',
                tooLong: false,
              };
      byGoal.set(goal, result);
      return result;
    },
  };
}
