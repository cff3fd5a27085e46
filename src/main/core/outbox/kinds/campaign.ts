// The campaign kind: an edit of an active campaign's name, objective or goal, based on the campaign as
// last listed, and sent as a PATCH. Campaigns have no updatedAt and no GET of their own: each is compared
// with the store's active list, field by field; one that left the list cannot be checked and is held for
// the user.
import { Campaign, type UpdateCampaignBody } from '#shared/api/index';
import { edits } from '#shared/contract/edits';
import type { Db } from '../../db/types';
import { cachedCampaign, writeLocalCampaign } from '../../db/cache/local-copies';
import { applyCampaignChanges } from '../local-copies';
import { mergeWithTheirs, type PendingRecord } from '../model';
import { deleteServerCopy, saveServerCopy, serverCopy } from '../../db/user/outbox';
import type { OutboxKindSpec } from './kind';
import {
  confirmEdit,
  holdConflict,
  setRecord,
  type SendContext,
  type SendOutcome,
} from './outcome';

/** The server's campaign under the pending edits: the saved copy, else the cache. */
export function serverCampaign(db: Db, storeId: string, campaignId: string): Campaign | null {
  const saved = Campaign.safeParse(serverCopy(db, storeId, 'campaign', campaignId));
  return saved.success ? saved.data : cachedCampaign(db, storeId, campaignId);
}

function rebaseCampaign(
  db: Db,
  storeId: string,
  campaignId: string,
  record: PendingRecord | null,
): void {
  const server = serverCampaign(db, storeId, campaignId);
  if (server === null) return;
  if (record === null) {
    writeLocalCampaign(db, storeId, server);
    deleteServerCopy(db, storeId, 'campaign', campaignId);
    return;
  }
  saveServerCopy(db, storeId, 'campaign', campaignId, server);
  writeLocalCampaign(db, storeId, applyCampaignChanges(server, record.changes));
}

export async function sendCampaign(ctx: SendContext, record: PendingRecord): Promise<SendOutcome> {
  const active = await ctx.activeCampaigns();
  const theirs = active.find((c) => c.id === record.recordId) ?? null;
  if (theirs === null && !record.forceSend)
    return holdConflict(ctx, record, { fields: {}, theirsUpdatedAt: null, gone: true });
  // Sent anyway (the user chose mine) when it cannot be compared.
  const { body, conflicts } =
    theirs === null
      ? { body: { ...record.changes }, conflicts: {} }
      : mergeWithTheirs(
          record,
          (field) => (theirs as Record<string, unknown>)[field] ?? null,
          record.forceSend,
        );
  if (theirs)
    ctx.tx(() => saveServerCopy(ctx.db, ctx.storeId, 'campaign', record.recordId, theirs));
  if (Object.keys(conflicts).length > 0)
    return holdConflict(ctx, record, { fields: conflicts, theirsUpdatedAt: null, gone: false });
  setRecord(ctx, record, { state: 'sending' });
  let updated: Campaign | null = null;
  if (Object.keys(body).length > 0) {
    ctx.counted();
    updated = await ctx.client.updateCampaign(record.recordId, body as UpdateCampaignBody, {
      signal: ctx.signal,
    });
  }
  const base = theirs ?? serverCampaign(ctx.db, ctx.storeId, record.recordId);
  return confirmEdit(ctx, record, () => {
    if (updated) writeLocalCampaign(ctx.db, ctx.storeId, updated);
    else if (base) writeLocalCampaign(ctx.db, ctx.storeId, applyCampaignChanges(base, body));
  });
}

export const campaignKind: OutboxKindSpec<'campaign'> = {
  kind: 'campaign',
  changes: edits.editCampaign.input.shape.changes,
  create: null,
  keepsAttempt: false,
  label(db, record) {
    const name = record.changes.name;
    return typeof name === 'string'
      ? name
      : (serverCampaign(db, record.storeId, record.recordId)?.name ?? record.recordId);
  },
  renamable: false,
  server: serverCampaign,
  rebase: (db, storeId, campaignId, record) => rebaseCampaign(db, storeId, campaignId, record),
  rebasePulledLists(db, record, campaigns) {
    if (campaigns === null) return;
    const server = campaigns.find((c) => c.id === record.recordId);
    if (server) saveServerCopy(db, record.storeId, 'campaign', record.recordId, server);
    rebaseCampaign(db, record.storeId, record.recordId, record);
  },
  localIdsNamed: () => [],
  send: sendCampaign,
};
