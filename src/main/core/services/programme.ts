// `programme.*`: the backlog across stores, what concluded tests taught (with the user's takeaways) and
// the estimated worth of shipped winners, all read from the cache (core/programme); takeaways in the user's file.
import { SetTakeawayInput, type Services } from '#shared/contract/index';
import { problem } from '#shared/problem';
import { summarizeIssues } from '#shared/validation';
import { getStoreRow } from '../db/cache/stores';
import type { Db } from '../db/types';
import { hasCachedTest } from '../db/cache/reads';
import { hasTakeaways, setTakeaway } from '../db/user/takeaways';
import type { DecisionRefresh } from '../decisions/refresh';
import type { SharedTexts } from '../team/records-service';
import { backlog } from '../programme/backlog';
import { learningsOf } from '../programme/learnings';

export interface ProgrammeServiceDeps {
  db: Db;
  clock: () => number;
  /** Calls being made again are waited for: the figures never mix old and new calls. */
  refresh: Pick<DecisionRefresh, 'idle'>;
  /** A shared store's takeaway is the team layer's, copied into the user file as it changes. */
  shared?: Pick<SharedTexts, 'setTakeaway'>;
}

export function createProgrammeService(deps: ProgrammeServiceDeps): Services['programme'] {
  const { db, clock, refresh } = deps;

  function requireStore(storeId: string): void {
    if (!getStoreRow(db, storeId)) {
      throw problem('notFound', 404, 'Store not found', `No store with id ${storeId}.`);
    }
  }

  return {
    async backlog(input) {
      if (input.storeId !== null) requireStore(input.storeId);
      return backlog(db, input);
    },

    async learnings(input) {
      if (input.storeId !== null) requireStore(input.storeId);
      await refresh.idle();
      return learningsOf(db, input, clock());
    },

    async setTakeaway(input) {
      // Parsed again: a caller in the process (the CLI, a test) skips the host's parse, and the rule holds for all.
      const parsed = SetTakeawayInput.safeParse(input);
      if (!parsed.success) {
        throw problem(
          'validation',
          400,
          'Invalid takeaway',
          summarizeIssues(parsed.error.issues, { root: 'takeaway' }),
        );
      }
      const { storeId, testId, text } = parsed.data;
      requireStore(storeId);
      if (!hasCachedTest(db, storeId, testId)) {
        throw problem('notFound', 404, 'Test not found', `No cached test ${testId} in this store.`);
      }
      if (db.readonly || !hasTakeaways(db)) {
        throw problem(
          'readOnly',
          409,
          'The takeaway cannot be saved',
          'The data folder cannot be written, so takeaways keep their current values.',
        );
      }
      const team = deps.shared?.setTakeaway(storeId, testId, text);
      if (team) return { text: team.text, updatedAt: team.updatedAt };
      const at = new Date(clock()).toISOString();
      setTakeaway(db, storeId, testId, text, at);
      return { text, updatedAt: text === '' ? null : at };
    },
  };
}
