// The portfolio counts tests by Splitbook's call on the goal as the Learnings do: a concluding call made in
// the window counts (ship won, keep the control lost, no meaningful difference flat), an ended test without
// one is inconclusive; the win rate is the Learnings'; the portfolio report the same, flat at the end.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Test, TestResults } from '#shared/api/index';
import { OUTCOME_DEFINITION } from '#shared/contract/index';
import { openDatabase } from '#core/db/open';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { PORTFOLIO_COLUMNS, portfolioReport } from '#core/review/portfolio';
import { addStore, makeTest } from '../db/fixtures';
import { startCore, tempDir } from '../support/core';
import { SHAPES, shapedResults } from './support';

const NOW = Date.parse('2026-06-15T00:00:00Z');
const DAY_MS = 86_400_000;

/** A conversion-rate test that ran `days` days from `start`, with results of that shape (or none). */
function seed(
  db: Db,
  n: number,
  status: string,
  start: string,
  days: number,
  shape: (typeof SHAPES)[keyof typeof SHAPES] | null,
): Test {
  const startAt = `${start}T00:00:00.000Z`;
  const test = makeTest({
    n,
    status,
    goal: 'conversion-rate',
    startAt,
    endAt: status === 'active' ? null : new Date(Date.parse(startAt) + days * DAY_MS).toISOString(),
  });
  upsertTests(db, { storeId: 's1', tests: [test], runId: 'r', syncedAt: '2026-06-15T00:00:00Z' });
  if (shape !== null) {
    const results: TestResults = shapedResults(test.id, { start, days, ...shape });
    upsertResults(db, {
      storeId: 's1',
      testId: test.id,
      results,
      fetchedAt: '2026-06-15T00:00:00Z',
      testUpdatedAt: test.updatedAt,
      testStatus: test.status,
    });
  }
  return test;
}

describe('the portfolio by decision', () => {
  it('counts ended tests won, lost, flat or inconclusive by the call on their goal', async () => {
    const data = tempDir('splitbook-decisions-portfolio-');
    try {
      const db = openDatabase(join(data.path, 'splitbook.db'), {
        userDataFile: join(data.path, 'splitbook-user.db'),
      });
      addStore(db, 's1', 'Alpha');
      seed(db, 1, 'completed', '2026-05-01', 14, SHAPES.ship);
      seed(db, 2, 'completed', '2026-05-01', 14, SHAPES.keepControl);
      seed(db, 3, 'completed', '2026-05-01', 14, SHAPES.flat);
      seed(db, 4, 'cancelled', '2026-05-01', 5, SHAPES.tiny);
      seed(db, 5, 'completed', '2026-05-01', 14, null);
      // A running test whose call is made counts by it too, as the Learnings count it: recommended to ship.
      seed(db, 6, 'active', '2026-06-01', 14, SHAPES.ship);
      const calls = db
        .prepare('SELECT id, decision FROM tests ORDER BY seq')
        .all()
        .map((row) => (row as { decision: string | null }).decision);
      expect(calls).toEqual([
        'ship',
        'keep_control',
        'no_difference',
        'cannot_conclude',
        null,
        'ship',
      ]);

      const rows = [...portfolioReport(db, NOW)];
      db.close();
      expect(PORTFOLIO_COLUMNS.at(-1)).toBe('flat');
      const column = (name: string) => PORTFOLIO_COLUMNS.indexOf(name as never);
      const alpha = rows[1] ?? [];
      expect(alpha[column('counted_90d')]).toBe(6);
      expect(alpha[column('won')]).toBe(2);
      expect(alpha[column('lost')]).toBe(1);
      expect(alpha[column('flat')]).toBe(1);
      expect(alpha[column('inconclusive')]).toBe(2);
      // Recommended to ship ÷ concluded: 2 of 4, the Learnings' own win rate.
      expect(alpha[column('win_rate')]).toBe(0.5);

      const core = await startCore(data.path, { clock: () => NOW });
      try {
        const figures = await core.services.portfolio.figures({});
        expect(figures.stores[0]?.ended).toEqual({
          won: 2,
          lost: 1,
          flat: 1,
          inconclusive: 2,
          total: 6,
        });
        expect(figures.total.ended).toEqual({
          won: 2,
          lost: 1,
          flat: 1,
          inconclusive: 2,
          total: 6,
        });
        expect(figures.total.winRate).toBe(0.5);
        // One definition: the Learnings of the same 90 days give the same win rate.
        const learnt = await core.services.programme.learnings({
          storeId: null,
          since: '2026-03-17',
          until: '2026-06-15',
        });
        expect(learnt.figures.winRate).toBe(0.5);
      } finally {
        await core.close();
      }
      expect(OUTCOME_DEFINITION).toContain('No meaningful difference');
    } finally {
      data.remove();
    }
  });
});
