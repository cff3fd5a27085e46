// Sends a campaign's edit. Campaigns have no updatedAt and no GET of their own: each is compared with
// the store's active list, field by field; one that left the list cannot be checked and is held for the user.
import type { Campaign, UpdateCampaignBody } from '#shared/api/index';
import { applyCampaignChanges, writeLocalCampaign } from '../local-copies';
import { mergeWithTheirs, type PendingRecord } from '../model';
import { serverCampaign } from '../rebase';
import { saveServerCopy } from '../store';
import {
  confirmEdit,
  holdConflict,
  setRecord,
  type SendContext,
  type SendOutcome,
} from './context';

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
