// The link offered: team stores this member was granted but has not linked, matched to the desktop's own stores on test ids (never on keys).
import * as Y from 'yjs';
import { z } from 'zod';
import type { TeamLinkOffer } from '#shared/contract/index';
import { teamTestIds } from '#shared/team/records';
import { cachedTestIds, storeNames } from '../db/cache/stores';
import type { Db } from '../db/types';
import { linkOfStore, linkOfTeamStore } from '../db/user/team';
import { settle, TeamConnection } from './connection';
import { memberOf } from './server-http';

export interface LinkOffers {
  offers: TeamLinkOffer[];
  unlinkedTeamStores: number;
}

/** A granted store as `GET /v1/stores` lists it. */
const GrantedStore = z.object({
  teamStoreId: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
});

export interface LinkOffersInput {
  db: Db;
  fetch: typeof fetch;
  url: string;
  token: string;
  /** Only offers for this local store (null: every store not linked yet). */
  storeId: string | null;
  /** How long to wait for the granted documents (the probe's own connection). */
  timeoutMs: number;
}

/**
 * Reads the documents of the granted, unlinked team stores on a connection of its own (into
 * throwaway copies, never kept: a store not linked stays not linked) and offers each local store not
 * linked the team stores whose tests it holds, most shared tests first.
 */
export async function findLinkOffers(input: LinkOffersInput): Promise<LinkOffers> {
  const { db } = input;
  const granted = (await memberOf(input.fetch, input.url, input.token)).stores
    .map((entry) => GrantedStore.safeParse(entry))
    .flatMap((parsed) => (parsed.success ? [parsed.data] : []))
    .filter((store) => !linkOfTeamStore(db, store.teamStoreId));
  const locals = storeNames(db, input.storeId)
    .filter((store) => !linkOfStore(db, store.id))
    .map((store) => ({ ...store, tests: cachedTestIds(db, store.id) }))
    .filter((store) => store.tests.size > 0);
  const unlinkedTeamStores = granted.length;
  if (locals.length === 0 || granted.length === 0) return { offers: [], unlinkedTeamStores };

  const docs = new Map(granted.map((store) => [store.teamStoreId, new Y.Doc()]));
  const probe = new TeamConnection({
    url: input.url,
    token: input.token,
    onConverged: () => undefined,
    onRefused: () => undefined,
  });
  try {
    for (const [id, doc] of docs) probe.open(id, doc);
    // What arrived by the end is read, whatever ended the wait.
    await settle(probe, [...docs.keys()], input.timeoutMs, false);
    const offers: TeamLinkOffer[] = [];
    for (const local of locals) {
      for (const store of granted) {
        const doc = docs.get(store.teamStoreId);
        if (!doc || !probe.converged(store.teamStoreId)) continue;
        const shared = teamTestIds(doc);
        const matching = shared.filter((id) => local.tests.has(id)).length;
        if (matching === 0) continue;
        offers.push({
          storeId: local.id,
          storeName: local.name,
          teamStoreId: store.teamStoreId,
          sharedBy: store.createdBy,
          sharedAt: store.createdAt,
          matchingTests: matching,
          teamTests: shared.length,
        });
      }
    }
    offers.sort((a, b) => a.storeId.localeCompare(b.storeId) || b.matchingTests - a.matchingTests);
    return { offers, unlinkedTeamStores };
  } finally {
    probe.close();
    for (const doc of docs.values()) doc.destroy();
  }
}
