// A sign-off as the contract says it (team.signOff, team.proposeSignOff), and as the reports read it: each shared store's sign-offs from the user file's copy of its layer, and whether today's call is still the one signed off.
import type { DecisionCall, TeamSignOff } from '#shared/contract/index';
import { teamTestIds } from '#shared/team/records';
import { signOffOf } from '#shared/team/values';
import * as Y from 'yjs';
import { getStoreRow } from '../db/cache/stores';
import { hasTeamData, linkOfStore, links, loadDoc } from '../db/user/team';
import type { Db } from '../db/types';

export function signOffOut(doc: Y.Doc, testId: string): TeamSignOff {
  const state = signOffOf(doc, testId);
  return {
    testId,
    state: state?.state ?? null,
    call: state?.call ?? null,
    proposedBy: state?.proposedBy ?? null,
    proposedAt: state?.proposedAt ?? null,
    approvedBy: state?.approvedBy ?? null,
    approvedAt: state?.approvedAt ?? null,
  };
}

/** A test's sign-off as a report shows it beside today's call. */
export type ReportSignOff = {
  state: 'proposed' | 'approved';
  /** The call signed off (stamped in the sign-off when it was proposed). */
  call: DecisionCall;
  proposedBy: string;
  proposedAt: string;
  approvedBy: string | null;
  approvedAt: string | null;
  /** Today's call differs from the one signed off: the sign-off does not stand for it. */
  stale: boolean;
};

/** One shared store's sign-offs by test id (tests without one left out). */
export type StoreSignOffs = ReadonlyMap<string, Omit<ReportSignOff, 'stale'>>;

/** Whether any store a report covers (one, or every store in the cache when null) is shared. */
export function anyStoreShared(db: Db, storeId: string | null): boolean {
  if (!hasTeamData(db)) return false;
  if (storeId !== null) return linkOfStore(db, storeId) !== null;
  return links(db).some((link) => getStoreRow(db, link.storeId) !== null);
}

/**
 * A shared store's sign-offs, read from the layer as this desktop holds it in the user file (every
 * update is kept there at once, so a report reads what the window shows); null when not shared.
 */
export function storeSignOffs(db: Db, storeId: string): StoreSignOffs | null {
  if (!hasTeamData(db)) return null;
  const link = linkOfStore(db, storeId);
  if (!link) return null;
  const doc = new Y.Doc();
  try {
    loadDoc(db, link.teamStoreId, doc, null);
    const out = new Map<string, Omit<ReportSignOff, 'stale'>>();
    for (const testId of teamTestIds(doc)) {
      const s = signOffOf(doc, testId);
      if (!s) continue;
      out.set(testId, {
        state: s.state,
        call: s.call,
        proposedBy: s.proposedBy,
        proposedAt: s.proposedAt,
        approvedBy: s.approvedBy,
        approvedAt: s.approvedAt,
      });
    }
    return out;
  } finally {
    doc.destroy();
  }
}

/** A test's sign-off against today's call (null: no call today, which no sign-off stands for). */
export function signOffFor(
  signOffs: StoreSignOffs,
  testId: string,
  today: string | null,
): ReportSignOff | null {
  const found = signOffs.get(testId);
  return found ? { ...found, stale: found.call !== today } : null;
}
