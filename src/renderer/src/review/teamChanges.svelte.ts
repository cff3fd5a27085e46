// The Changes view's team section: each shared store's changes by other members since my last review, and who else reviewed it (team.changes; no entry for a store not shared).
import type { Resource, TeamChange, TeamStoreChanges } from '#shared/contract/index';
import { api } from '../lib/api';
import { Loader } from '../lib/loader.svelte';

/** What the section reads: the review memory (my last review) and the layer (`team.changed` bumps notes). */
export const TEAM_CHANGES_READS: readonly Resource[] = ['review', 'notes'];

/** How each kind of team change reads: a word and a sign, never colour alone. */
export const TEAM_KIND_LABEL: Record<TeamChange['kind'], { word: string; sign: string }> = {
  note: { word: 'Note', sign: '✎' },
  takeaway: { word: 'Takeaway', sign: '✎' },
  comment: { word: 'Comment', sign: '“' },
  commentEdited: { word: 'Edited', sign: '✎' },
  commentDeleted: { word: 'Deleted', sign: '×' },
  review: { word: 'Review', sign: '✓' },
  owner: { word: 'Owner', sign: '●' },
  signOff: { word: 'Sign-off', sign: '✓' },
  annotation: { word: 'Annotated', sign: '⚑' },
};

class TeamChanges extends Loader<null, TeamStoreChanges[]> {
  constructor() {
    super(async () => (await api.team.changes({ storeId: null })).stores);
  }

  /** A shared store's section, null for a store not shared (or before the first answer). */
  of(storeId: string): TeamStoreChanges | null {
    return this.data?.find((s) => s.storeId === storeId) ?? null;
  }

  /** Every listed team change in these stores. */
  countIn(storeIds: readonly string[]): number {
    return (this.data ?? [])
      .filter((s) => storeIds.includes(s.storeId))
      .reduce((sum, s) => sum + s.count, 0);
  }
}

export const teamChanges = new TeamChanges();
