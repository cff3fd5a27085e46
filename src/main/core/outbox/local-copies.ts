// The local copy of records with unsent edits, in the cache: a test's or campaign's row and raw JSON
// written as "server copy + pending edits" (each field applied by its description, the row by the one
// writer of db/tests.ts), tags and audiences created here, and the look-ups an edit needs.
import { Campaign, CustomAudience, Test, type DefaultAudience, type Tag } from '#shared/api/index';
import { testField, type RecordLookups } from '#shared/domain/test-fields';
import { statement } from '../db/statements';
import { writeTestRow } from '../db/cache/tests';
import type { Db } from '../db/types';
import { toJson } from '../db/values';

function parsed<T>(
  schema: { safeParse(v: unknown): { success: boolean; data?: T } },
  json: string | undefined,
): T | null {
  if (json === undefined) return null;
  const result = schema.safeParse(JSON.parse(json));
  return result.success && result.data !== undefined ? result.data : null;
}

/** The cached test (server values, or the local copy when edits are pending). */
export function cachedTest(db: Db, storeId: string, testId: string): Test | null {
  const row = statement<{ raw: string }>(
    db,
    `SELECT r.raw_json AS raw FROM tests t JOIN tests_raw r ON r.seq = t.seq WHERE t.store_id = ? AND t.id = ?`,
  ).get(storeId, testId);
  return parsed<Test>(Test, row?.raw);
}

export function cachedCampaign(db: Db, storeId: string, campaignId: string): Campaign | null {
  const row = statement<{ raw: string }>(
    db,
    `SELECT raw_json AS raw FROM campaigns WHERE store_id = ? AND id = ?`,
  ).get(storeId, campaignId);
  return parsed<Campaign>(Campaign, row?.raw);
}

/**
 * Rewrites a cached test with this record (the local copy, or the server's after a discard), its
 * tags and audiences included, without touching what the sync bookkeeps (seen-in-run, synced_at).
 * A test the cache does not hold is left alone: the next pull brings it and the rebase applies edits.
 */
export function writeLocalTest(db: Db, storeId: string, test: Test): void {
  writeTestRow(db, { storeId, test, rawJson: toJson(test), hadParts: true });
}

export function writeLocalCampaign(db: Db, storeId: string, campaign: Campaign): void {
  statement(
    db,
    `UPDATE campaigns SET name = ?, objective = ?, goal = ?, raw_json = ? WHERE store_id = ? AND id = ?`,
  ).run(campaign.name, campaign.objective, campaign.goal, toJson(campaign), storeId, campaign.id);
}

/** A tag known to the store (seen on a test, created here, or created offline with a local id). */
export function saveTag(db: Db, storeId: string, tag: Tag): void {
  statement(
    db,
    `INSERT INTO tags (store_id, id, name) VALUES (?, ?, ?) ON CONFLICT (store_id, id) DO UPDATE SET name = excluded.name`,
  ).run(storeId, tag.id, tag.name);
}

export function deleteTag(db: Db, storeId: string, tagId: string): void {
  statement(db, `DELETE FROM tags WHERE store_id = ? AND id = ?`).run(storeId, tagId);
}

/** Tags of the store whose name matches case-insensitively (names are unique that way). */
export function tagsNamed(db: Db, storeId: string, name: string): Tag[] {
  return statement<Tag>(
    db,
    `SELECT id, name FROM tags WHERE store_id = ? AND lower(name) = lower(?)`,
  ).all(storeId, name);
}

export function tagById(db: Db, storeId: string, tagId: string): Tag | null {
  return (
    statement<Tag>(db, `SELECT id, name FROM tags WHERE store_id = ? AND id = ?`).get(
      storeId,
      tagId,
    ) ?? null
  );
}

/** A custom audience as cached (a pending create's local copy included). */
export function audienceById(db: Db, storeId: string, id: string): CustomAudience | null {
  const row = statement<{ raw: string }>(
    db,
    `SELECT raw_json AS raw FROM custom_audiences WHERE store_id = ? AND id = ?`,
  ).get(storeId, id);
  return parsed<CustomAudience>(CustomAudience, row?.raw);
}

export function audiencesNamed(db: Db, storeId: string, name: string): CustomAudience[] {
  return statement<{ raw: string }>(
    db,
    `SELECT raw_json AS raw FROM custom_audiences WHERE store_id = ? AND name = ?`,
  )
    .all(storeId, name)
    .flatMap((row) => parsed<CustomAudience>(CustomAudience, row.raw) ?? []);
}

export function saveAudience(
  db: Db,
  storeId: string,
  audience: CustomAudience,
  syncedAt: string,
): void {
  statement(
    db,
    `INSERT OR REPLACE INTO custom_audiences (store_id, id, name, rules_json, raw_json, synced_at) VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(
    storeId,
    audience.id,
    audience.name,
    JSON.stringify(audience.rules),
    toJson(audience),
    syncedAt,
  );
}

export function deleteAudience(db: Db, storeId: string, id: string): void {
  statement(db, `DELETE FROM custom_audiences WHERE store_id = ? AND id = ?`).run(storeId, id);
}

/** The default audiences seen on any cached test of the store (they cannot be listed). */
export function defaultAudienceById(db: Db, storeId: string, id: string): DefaultAudience | null {
  const row = statement<{ value: string }>(
    db,
    `SELECT d.value FROM tests t JOIN tests_raw r ON r.seq = t.seq, json_each(r.raw_json, '$.defaultAudiences') d
     WHERE t.store_id = ? AND json_extract(d.value, '$.id') = ? LIMIT 1`,
  ).get(storeId, id);
  return row ? (JSON.parse(row.value) as DefaultAudience) : null;
}

export function campaignName(db: Db, storeId: string, id: string): string | null {
  return (
    statement<{ name: string }>(db, `SELECT name FROM campaigns WHERE store_id = ? AND id = ?`).get(
      storeId,
      id,
    )?.name ?? null
  );
}

/** What the cache knows of the records an edit's ids name (a pending create's local copy included). */
export function recordLookups(db: Db, storeId: string): RecordLookups {
  return {
    campaignName: (id) => campaignName(db, storeId, id),
    tag: (id) => tagById(db, storeId, id),
    audience: (id) => audienceById(db, storeId, id),
    defaultAudience: (id) => defaultAudienceById(db, storeId, id),
  };
}

/** A test with pending changes applied: what the user sees until the server confirms or refuses. */
export function applyTestChanges(
  db: Db,
  storeId: string,
  server: Test,
  changes: Record<string, unknown>,
): Test {
  const test: Test = structuredClone(server);
  const lookups = recordLookups(db, storeId);
  for (const [field, value] of Object.entries(changes))
    testField(field)?.apply(test, value, lookups);
  return test;
}

export function applyCampaignChanges(server: Campaign, changes: Record<string, unknown>): Campaign {
  const campaign: Campaign = structuredClone(server);
  if (typeof changes.name === 'string') campaign.name = changes.name;
  if ('objective' in changes)
    campaign.objective = typeof changes.objective === 'string' ? changes.objective : null;
  if ('goal' in changes) campaign.goal = typeof changes.goal === 'string' ? changes.goal : null;
  return campaign;
}
