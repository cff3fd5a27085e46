// Sends a custom audience created here. Audiences can be listed: one whose create may have gone through
// is looked up by its exact name before it is sent again.
import type { ApiClient } from '../../api';
import type { PendingRecord } from '../model';
import {
  confirmCreate,
  failRecord,
  markAttempt,
  problemOf,
  statusOf,
  type SendContext,
  type SendOutcome,
} from './context';

type AudienceRules = NonNullable<Parameters<ApiClient['createCustomAudience']>[0]['rules']>;

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
