// The local copy of records with unsent edits: a test or campaign as "server copy + pending edits" (each
// field applied by its description), and the look-ups an edit needs. The cache's rows it reads and writes
// (tests, campaigns, tags, audiences) are db/cache/local-copies.ts's: import those from there.
import type { Campaign, Test } from '#shared/api/index';
import { testField, type RecordLookups } from '#shared/domain/test-fields';
import { audienceById, campaignName, defaultAudienceById, tagById } from '../db/cache/local-copies';
import type { Db } from '../db/types';

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
