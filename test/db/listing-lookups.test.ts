// The look-ups a sync makes for each part of a listing (issue 46, item 13): found by each listed id through
// the (store, id) keys, never by walking all of the store's tests or results. Without statistics SQLite's
// planner put the store's whole index outside json_each, so every part read every cached row: a listing
// of 200,000 tests slowed from page to page (bench large-listing).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LISTING_LOOKUPS } from '#core/db/cache/results';
import { openDatabase } from '#core/db/open';
import { tempDir } from './fixtures';

describe('the listing look-ups', () => {
  it.each(Object.entries(LISTING_LOOKUPS))(
    '%s walks the listed ids, each found by its key',
    (_name, lookup) => {
      const dir = tempDir();
      const db = openDatabase(join(dir, 'splitbook.db'), {
        userDataFile: join(dir, 'splitbook-user.db'),
      });
      try {
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${lookup.sql}`)
          .all({ ids: '[]', storeId: 's' })
          .map((row) => (row as { detail: string }).detail);
        expect(plan[0]).toMatch(/^SCAN ids VIRTUAL TABLE/);
        for (const step of plan.slice(1).filter((s) => /^(SEARCH|SCAN) [tr] /.test(s)))
          expect(step).toMatch(/\(store_id=\? AND (id|test_id)=\?\)/);
      } finally {
        db.close();
      }
    },
  );
});
