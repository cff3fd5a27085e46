// Migration 18: what the review memory compares of a test's results, kept beside them. Frozen once released.
import type { Migration } from './migration';

/**
 * The review memory (review/snapshots.ts) compares each test's visitors per side and tier per goal
 * after every sync. It took them from the packed raw record: a Brotli decompression and a parse of
 * about 32 kB of JSON a test, about 1 s of a twenty-store first sync. `review_parts` holds just those
 * ([control visitors, variant visitors, {goal: {tier}}]), written with the results (db/cache/results.ts).
 * NULL in rows written before this version: those are still read from the raw record until their
 * results are fetched again, so nothing is backfilled on the start path.
 */
const SQL = `ALTER TABLE results ADD COLUMN review_parts TEXT;`;

export const migration018: Migration = { version: 18, up: (db) => db.exec(SQL) };
