// Pull phases 3 and 4: the lists the API returns whole (active campaigns, custom audiences), each
// replaced in one transaction.
import type { RecordList } from '../../api';
import { markResourceSynced } from '../../db/cache/sync-state';
import { replaceCampaigns } from '../../db/cache/campaigns';
import { replaceCustomAudiences } from '../../db/cache/audiences';
import type { Db, SetAsideResource } from '../../db/types';
import { keepAside, type PhaseContext } from './context';
import { rebasePulledLists } from '../../outbox';

export async function pullCampaigns(ctx: PhaseContext): Promise<void> {
  await pullList(
    ctx,
    'campaigns',
    'campaign',
    (o) => ctx.client.listActiveCampaigns(o),
    (db, campaigns, syncedAt) => {
      replaceCampaigns(db, { storeId: ctx.storeId, campaigns, syncedAt });
      rebasePulledLists(db, ctx.storeId, campaigns, syncedAt);
    },
  );
}

export async function pullAudiences(ctx: PhaseContext): Promise<void> {
  await pullList(
    ctx,
    'audiences',
    'audience',
    (o) => ctx.client.listCustomAudiences(o),
    (db, audiences, syncedAt) => {
      replaceCustomAudiences(db, { storeId: ctx.storeId, audiences, syncedAt });
      // Audiences created offline are not in the store's list yet: their local copies come back.
      rebasePulledLists(db, ctx.storeId, null, syncedAt);
    },
  );
}

async function pullList<T>(
  ctx: PhaseContext,
  phase: 'campaigns' | 'audiences',
  resource: SetAsideResource,
  fetchList: (options: { signal: AbortSignal }) => Promise<RecordList<T>>,
  replace: (db: Db, items: T[], syncedAt: string) => void,
): Promise<void> {
  const { db, storeId, progress, counters } = ctx;
  progress.report(phase, 0, null);
  counters.requests += 1;
  const result = await fetchList({ signal: ctx.signal });
  const syncedAt = ctx.now();
  db.transaction(() => {
    replace(db, result.items, syncedAt);
    for (const rejected of result.rejected) {
      keepAside(db, counters, {
        storeId,
        resource,
        recordId: rejected.id,
        error: rejected.error,
        raw: rejected.raw,
        seenAt: syncedAt,
      });
    }
    markResourceSynced(db, storeId, phase, syncedAt);
  }).immediate();
  counters.setAside += result.rejected.length;
  progress.report(phase, result.items.length, result.items.length);
}
