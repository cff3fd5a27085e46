// The audience kind: a custom audience created here under a local id (its change: a name and rules), kept
// as a local audience until the store gives its id, and sent as a POST. Audiences can be listed: one whose create may have gone through
// is looked up by its exact name before it is sent again.
import type { CustomAudience } from '#shared/api/index';
import { edits } from '#shared/contract/edits';
import type { ApiClient } from '../../api';
import type { Db } from '../../db/types';
import { audienceById, deleteAudience, saveAudience } from '../../db/cache/local-copies';
import type { PendingRecord } from '../model';
import type { OutboxKindSpec } from './kind';
import {
  confirmCreate,
  failRecord,
  markAttempt,
  problemOf,
  statusOf,
  type SendContext,
  type SendOutcome,
} from './outcome';

type AudienceRules = NonNullable<Parameters<ApiClient['createCustomAudience']>[0]['rules']>;

/** The local copy of an audience created here and not confirmed yet. */
export function localAudience(record: PendingRecord): CustomAudience {
  const rules = Array.isArray(record.changes.rules)
    ? (record.changes.rules as CustomAudience['rules'])
    : [];
  return { id: record.recordId, name: String(record.changes.name ?? ''), rules };
}

function rebaseAudience(db: Db, record: PendingRecord | null, now: string): void {
  if (record === null) return;
  if (audienceById(db, record.storeId, record.recordId) === null)
    saveAudience(db, record.storeId, localAudience(record), now);
}

export async function sendAudience(ctx: SendContext, record: PendingRecord): Promise<SendOutcome> {
  const name = String(record.changes.name ?? '');
  const findByName = async () => {
    ctx.counted();
    const list = await ctx.client.listCustomAudiences({ signal: ctx.signal });
    return list.items.find((a) => a.name === name) ?? null;
  };
  if (record.attemptedAt !== null) {
    // The last attempt may have gone through: look before repeating.
    const found = await findByName();
    if (found) return confirmCreate(ctx, record, { id: found.id, audience: found });
  }
  markAttempt(ctx, record);
  const rules = (Array.isArray(record.changes.rules) ? record.changes.rules : []) as AudienceRules;
  ctx.counted();
  try {
    const created = await ctx.client.createCustomAudience({ name, rules }, { signal: ctx.signal });
    const audience = created ?? (await findByName());
    if (!audience)
      throw new Error(
        'The store created the audience but did not return it, and it is not in its list',
      );
    return confirmCreate(ctx, record, { id: audience.id, audience });
  } catch (error) {
    if (statusOf(error) === 400) return failRecord(ctx, record, problemOf(error));
    throw error;
  }
}

export const audienceKind: OutboxKindSpec<'audience'> = {
  kind: 'audience',
  changes: edits.createAudience.input.pick({ name: true, rules: true }),
  create: {
    replaceLocal(db, record, confirmed, now) {
      deleteAudience(db, record.storeId, record.recordId);
      if (confirmed) {
        const name = String(record.changes.name ?? '');
        saveAudience(
          db,
          record.storeId,
          confirmed.audience ?? { id: confirmed.id, name, rules: [] },
          now,
        );
      }
    },
  },
  keepsAttempt: true,
  label: (_db, record) => String(record.changes.name ?? record.recordId),
  renamable: false,
  server: () => null,
  rebase: (db, _storeId, _id, record, now) => rebaseAudience(db, record, now),
  rebasePulledLists: (db, record, _campaigns, now) => rebaseAudience(db, record, now),
  localIdsNamed: () => [],
  send: sendAudience,
};
