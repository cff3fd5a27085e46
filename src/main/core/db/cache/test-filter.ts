// The test list's filter as SQL: the conditions and named parameters every read of tests in a
// filter's scope shares (the list and its facets, the reports, Learnings, Backlog).
import type { TestFilter } from '#shared/contract/index';
import type { SqlValue } from '../sql';

/** Conditions joined by AND, and the named parameters (@name) they bind, from one object. */
export type Where = { conditions: string[]; params: Record<string, SqlValue> };

export const emptyWhere = (): Where => ({ conditions: [], params: {} });

/**
 * The store and removed-or-not: the scope the facets' option lists are drawn from.
 * The unary `+` keeps the planner from seeking on these columns: they keep most rows, so
 * walking the sort's index (which holds store_id) beats seeking them and sorting the lot.
 */
function scopeWhere(filter: TestFilter): Where {
  const where = emptyWhere();
  if (filter.storeId !== null) add(where, '+t.store_id = @storeId', { storeId: filter.storeId });
  if (!filter.includeRemoved) add(where, '+t.removed = 0');
  return where;
}

/**
 * The whole filter. Status, stage, goal and device have few values, each matching a large
 * share of tests, so they too are kept off indexes (`+`); campaign, audience, tag and search are
 * selective, and there seeking the matches and sorting them is the cheaper plan.
 */
export function filterWhere(filter: TestFilter, withStatuses: boolean, withNotes = false): Where {
  const where = scopeWhere(filter);
  if (withStatuses && filter.statuses.length > 0) {
    add(where, '+t.status IN (SELECT value FROM json_each(@statuses))', {
      statuses: JSON.stringify(filter.statuses),
    });
  }
  if (filter.stage !== null) add(where, '+t.stage = @stage', { stage: filter.stage });
  // Spellings of one goal ("click-through-rate", "clickThroughRate") are one goal.
  if (filter.goal !== null)
    add(where, 'spelling_key(t.goal) = spelling_key(@goal)', { goal: filter.goal });
  if (filter.device !== null) add(where, '+t.device = @device', { device: filter.device });
  if (filter.tag !== null) {
    add(
      where,
      '(t.store_id, t.id) IN (SELECT store_id, test_id FROM test_tags WHERE name = @tag COLLATE NOCASE)',
      { tag: filter.tag },
    );
  }
  if (filter.campaignId !== null)
    add(where, 't.campaign_id = @campaignId', { campaignId: filter.campaignId });
  if (filter.audienceId !== null) {
    add(
      where,
      '(t.store_id, t.id) IN (SELECT store_id, test_id FROM test_custom_audiences WHERE audience_id = @audienceId)',
      { audienceId: filter.audienceId },
    );
  }
  if (filter.hasAlerts) add(where, '+t.alert_count > 0');
  // The user file's copy of the team layer's owners (team/views.ts keeps it); the window's cores
  // always have the user file attached, the only ones that ask for "Mine".
  if (filter.mine) {
    add(
      where,
      '(t.store_id, t.id) IN (SELECT o.store_id, o.test_id FROM user.team_owners o WHERE o.owner = (SELECT member FROM user.team WHERE id = 1))',
    );
  }
  addSearch(where, filter.search, withNotes);
  return where;
}

/**
 * Every word must occur, as a substring of any case, in the title, hypothesis or handle.
 * Words of three or more characters go through the trigram index; shorter ones (which
 * trigrams cannot match) fall back to LIKE. With the user's file attached, a test whose
 * own note holds every word matches too (notes are few, so a LIKE scan of them is cheap).
 */
function addSearch(where: Where, search: string, withNotes: boolean): void {
  const words = search
    .trim()
    .split(/\s+/)
    .filter((word) => word.length > 0);
  if (words.length === 0) return;
  const text = emptyWhere();
  const indexed = words.filter((word) => [...word].length >= 3);
  const short = words.filter((word) => [...word].length < 3);
  if (indexed.length > 0) {
    const match = indexed.map((word) => `"${word.replaceAll('"', '""')}"`).join(' ');
    add(text, 't.seq IN (SELECT rowid FROM tests_fts WHERE tests_fts MATCH @match)', { match });
  }
  short.forEach((word, i) => {
    add(
      text,
      `(t.title LIKE @short${i} ESCAPE '\\' OR t.hypothesis LIKE @short${i} ESCAPE '\\' OR t.handle LIKE @short${i} ESCAPE '\\')`,
      { [`short${i}`]: likePattern(word) },
    );
  });
  if (!withNotes) {
    where.conditions.push(...text.conditions);
    Object.assign(where.params, text.params);
    return;
  }
  const inNote = words.map((_, i) => `n.body LIKE @noteWord${i} ESCAPE '\\'`).join(' AND ');
  add(
    where,
    `((${text.conditions.join(' AND ')}) OR (t.store_id, t.id) IN (SELECT n.store_id, n.test_id FROM user.notes n WHERE ${inNote}))`,
    {
      ...text.params,
      ...Object.fromEntries(words.map((word, i) => [`noteWord${i}`, likePattern(word)])),
    },
  );
}

function likePattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Adds a condition and the parameters it names. A name already bound to another value is a mistake
 * in the caller's SQL (two conditions would read one value), so it throws.
 */
export function add(
  where: Where,
  condition: string,
  params: Readonly<Record<string, SqlValue>> = {},
): void {
  for (const [name, value] of Object.entries(params)) {
    if (name in where.params && where.params[name] !== value) {
      throw new Error(`SQL parameter @${name} bound twice, to different values`);
    }
    where.params[name] = value;
  }
  where.conditions.push(condition);
}

/** A copy of `where` that later conditions can be added to without changing the original. */
export const copyWhere = (where: Where): Where => ({
  conditions: [...where.conditions],
  params: { ...where.params },
});

export function whereSql(where: Where): string {
  return where.conditions.length > 0 ? `WHERE ${where.conditions.join(' AND ')}` : '';
}
