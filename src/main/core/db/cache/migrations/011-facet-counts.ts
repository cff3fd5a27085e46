// Migration 11: per-store facet counts kept up to date by triggers, so the filter chips need no scan of tests. Frozen: a released migration is never edited.
import type { Migration } from './migration';

/**
 * v9: `test_facet_counts` holds how many tests share each (store, removed, status, stage, goal, device,
 * alerted) combination (a few thousand rows at 50,000 tests), and `test_campaign_counts` how many name
 * each campaign (with the name the tests give it, so the option keeps that name). Triggers on `tests`
 * keep both right through inserts, updates and deletes (a store's deletion cascades to its tests, so
 * its counts go too); a combination whose count reaches 0 is deleted. `alerted` is `alert_count > 0`
 * (NULL, not computed yet, counts as 0), as the list's "has alerts" filter reads it.
 */
const SQL = `
CREATE TABLE test_facet_counts (
  store_id TEXT NOT NULL,
  removed  INTEGER NOT NULL,
  status   TEXT NOT NULL,
  stage    TEXT NOT NULL,
  goal     TEXT NOT NULL,
  device   TEXT NOT NULL,
  alerted  INTEGER NOT NULL,
  n        INTEGER NOT NULL,
  PRIMARY KEY (store_id, removed, status, stage, goal, device, alerted)
) STRICT, WITHOUT ROWID;

-- The name is part of the key (a NULL name as named = 0, ''), so max(name) over the rows left is the tests' name.
CREATE TABLE test_campaign_counts (
  store_id    TEXT NOT NULL,
  removed     INTEGER NOT NULL,
  campaign_id TEXT NOT NULL,
  named       INTEGER NOT NULL,
  name        TEXT NOT NULL,
  n           INTEGER NOT NULL,
  PRIMARY KEY (store_id, removed, campaign_id, named, name)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER test_facet_counts_after_insert AFTER INSERT ON tests BEGIN
  INSERT INTO test_facet_counts (store_id, removed, status, stage, goal, device, alerted, n)
  VALUES (new.store_id, new.removed, new.status, new.stage, new.goal, new.device, coalesce(new.alert_count, 0) > 0, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO test_campaign_counts (store_id, removed, campaign_id, named, name, n)
  SELECT new.store_id, new.removed, new.campaign_id, new.campaign_name IS NOT NULL, coalesce(new.campaign_name, ''), 1
  WHERE new.campaign_id IS NOT NULL
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER test_facet_counts_after_delete AFTER DELETE ON tests BEGIN
  UPDATE test_facet_counts SET n = n - 1
  WHERE store_id = old.store_id AND removed = old.removed AND status = old.status AND stage = old.stage
    AND goal = old.goal AND device = old.device AND alerted = (coalesce(old.alert_count, 0) > 0);
  DELETE FROM test_facet_counts
  WHERE store_id = old.store_id AND removed = old.removed AND status = old.status AND stage = old.stage
    AND goal = old.goal AND device = old.device AND alerted = (coalesce(old.alert_count, 0) > 0) AND n <= 0;
  UPDATE test_campaign_counts SET n = n - 1
  WHERE old.campaign_id IS NOT NULL AND store_id = old.store_id AND removed = old.removed
    AND campaign_id = old.campaign_id AND named = (old.campaign_name IS NOT NULL) AND name = coalesce(old.campaign_name, '');
  DELETE FROM test_campaign_counts
  WHERE old.campaign_id IS NOT NULL AND store_id = old.store_id AND removed = old.removed
    AND campaign_id = old.campaign_id AND named = (old.campaign_name IS NOT NULL) AND name = coalesce(old.campaign_name, '') AND n <= 0;
END;

CREATE TRIGGER test_facet_counts_after_update
AFTER UPDATE OF store_id, removed, status, stage, goal, device, alert_count ON tests
WHEN old.store_id IS NOT new.store_id OR old.removed IS NOT new.removed OR old.status IS NOT new.status
  OR old.stage IS NOT new.stage OR old.goal IS NOT new.goal OR old.device IS NOT new.device
  OR (coalesce(old.alert_count, 0) > 0) IS NOT (coalesce(new.alert_count, 0) > 0)
BEGIN
  UPDATE test_facet_counts SET n = n - 1
  WHERE store_id = old.store_id AND removed = old.removed AND status = old.status AND stage = old.stage
    AND goal = old.goal AND device = old.device AND alerted = (coalesce(old.alert_count, 0) > 0);
  DELETE FROM test_facet_counts
  WHERE store_id = old.store_id AND removed = old.removed AND status = old.status AND stage = old.stage
    AND goal = old.goal AND device = old.device AND alerted = (coalesce(old.alert_count, 0) > 0) AND n <= 0;
  INSERT INTO test_facet_counts (store_id, removed, status, stage, goal, device, alerted, n)
  VALUES (new.store_id, new.removed, new.status, new.stage, new.goal, new.device, coalesce(new.alert_count, 0) > 0, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER test_campaign_counts_after_update
AFTER UPDATE OF store_id, removed, campaign_id, campaign_name ON tests
WHEN old.store_id IS NOT new.store_id OR old.removed IS NOT new.removed
  OR old.campaign_id IS NOT new.campaign_id OR old.campaign_name IS NOT new.campaign_name
BEGIN
  UPDATE test_campaign_counts SET n = n - 1
  WHERE old.campaign_id IS NOT NULL AND store_id = old.store_id AND removed = old.removed
    AND campaign_id = old.campaign_id AND named = (old.campaign_name IS NOT NULL) AND name = coalesce(old.campaign_name, '');
  DELETE FROM test_campaign_counts
  WHERE old.campaign_id IS NOT NULL AND store_id = old.store_id AND removed = old.removed
    AND campaign_id = old.campaign_id AND named = (old.campaign_name IS NOT NULL) AND name = coalesce(old.campaign_name, '') AND n <= 0;
  INSERT INTO test_campaign_counts (store_id, removed, campaign_id, named, name, n)
  SELECT new.store_id, new.removed, new.campaign_id, new.campaign_name IS NOT NULL, coalesce(new.campaign_name, ''), 1
  WHERE new.campaign_id IS NOT NULL
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

INSERT INTO test_facet_counts (store_id, removed, status, stage, goal, device, alerted, n)
SELECT store_id, removed, status, stage, goal, device, coalesce(alert_count, 0) > 0, count(*)
FROM tests GROUP BY 1, 2, 3, 4, 5, 6, 7;

INSERT INTO test_campaign_counts (store_id, removed, campaign_id, named, name, n)
SELECT store_id, removed, campaign_id, campaign_name IS NOT NULL, coalesce(campaign_name, ''), count(*)
FROM tests WHERE campaign_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5;
`;

export const migration011: Migration = { version: 11, up: (db) => db.exec(SQL) };
