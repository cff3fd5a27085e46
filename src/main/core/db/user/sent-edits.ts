// The edits Splitbook sent and the store confirmed (user.sent_edits), and one test's fields as the review
// memory reads them, so the Changes view can tell the user's own edits from changes made elsewhere.
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';

/** A test's metadata columns as the review memory reads them (see TrackedRow). */
export type MetaRow = {
  title: string;
  hypothesis: string | null;
  priority: string | null;
  surfaceArea: string | null;
  impact: number | null;
  effort: number | null;
  implemented: number | null;
  tagNames: string;
  campaignName: string | null;
  goal: string;
  device: string;
  startAt: string | null;
  endAt: string | null;
};

/** Metadata fields whose server-side edits are reported with old and new values. */
export const META_FIELDS = [
  'title',
  'hypothesis',
  'priority',
  'surfaceArea',
  'impact',
  'effort',
  'implemented',
  'tags',
  'campaign',
  'goal',
  'device',
  'startAt',
  'endAt',
] as const;
export type MetaField = (typeof META_FIELDS)[number];
export type ChangeValue = string | number | boolean | null;
export type Meta = Record<MetaField, ChangeValue>;

const META_ROW = read<MetaRow, { storeId: string; testId: string }>(
  `SELECT title, hypothesis, priority, surface_area AS surfaceArea, impact, effort, implemented,
          tag_names AS tagNames, campaign_name AS campaignName, goal, device,
          start_at AS startAt, end_at AS endAt
   FROM tests WHERE store_id = @storeId AND id = @testId`,
);

export function metaRow(db: Db, storeId: string, testId: string): MetaRow | null {
  return META_ROW.get(db, { storeId, testId }) ?? null;
}

/** A test's metadata as the review memory compares it (also what a sent edit is remembered as). */
export function metaOf(row: MetaRow): Meta {
  return {
    title: row.title,
    hypothesis: row.hypothesis,
    priority: row.priority,
    surfaceArea: row.surfaceArea,
    impact: row.impact,
    effort: row.effort,
    implemented: row.implemented === null ? null : row.implemented === 1,
    tags: tagList(row.tagNames),
    campaign: row.campaignName,
    goal: row.goal,
    device: row.device,
    startAt: row.startAt,
    endAt: row.endAt,
  };
}

function tagList(json: string): string {
  try {
    const names: unknown = JSON.parse(json);
    return Array.isArray(names) ? names.map(String).sort().join(', ') : '';
  } catch {
    return '';
  }
}

export type SentEdit = { testId: string; field: string; valueJson: string; sentAt: string };

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

const INSERT_SENT_EDIT = write<{
  storeId: string;
  testId: string;
  field: string;
  valueJson: string;
  sentAt: string;
}>(
  `INSERT INTO user.sent_edits (store_id, test_id, field, value_json, sent_at)
   VALUES (@storeId, @testId, @field, @valueJson, @sentAt)`,
);
const DELETE_SENT_BEFORE = write<{ storeId: string; cutoff: string }>(
  `DELETE FROM user.sent_edits WHERE store_id = @storeId AND sent_at < @cutoff`,
);
const SENT_EDITS_SINCE = read<SentEdit, { storeId: string; since: string }>(
  `SELECT test_id AS testId, field, value_json AS valueJson, sent_at AS sentAt
   FROM user.sent_edits WHERE store_id = @storeId AND sent_at >= @since ORDER BY sent_at`,
);
const DELETE_SENT_EDITS = write<{ storeId: string }>(
  `DELETE FROM user.sent_edits WHERE store_id = @storeId`,
);

/** Remembers what the store confirmed; rows older than a year go. */
export function writeSentEdits(
  db: Db,
  storeId: string,
  edits: readonly Omit<SentEdit, 'sentAt'>[],
  sentAt: string,
): void {
  if (!hasUserData(db) || edits.length === 0) return;
  for (const { testId, field, valueJson } of edits) {
    INSERT_SENT_EDIT.run(db, { storeId, testId, field, valueJson, sentAt });
  }
  const cutoff = new Date(Date.parse(sentAt) - YEAR_MS).toISOString();
  DELETE_SENT_BEFORE.run(db, { storeId, cutoff });
}

/** The store's confirmed edits sent at or after `since`, oldest first. */
export function sentEditsSince(db: Db, storeId: string, since: string): SentEdit[] {
  if (!hasUserData(db)) return [];
  return SENT_EDITS_SINCE.all(db, { storeId, since });
}

export function deleteSentEdits(db: Db, storeId: string): void {
  if (!hasUserData(db)) return;
  DELETE_SENT_EDITS.run(db, { storeId });
}
