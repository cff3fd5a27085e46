// Reads and writes of the user's settings (user file, one row per setting, the value as JSON).
import { DEFAULT_SETTINGS, Settings, type SettingsPatch } from '#shared/contract/settings';
import { statement } from '../statements';
import type { Db } from '../types';
import { hasUserData } from './attached';

/**
 * Every setting, a default standing in for one never set or unreadable (written by a newer version,
 * say): a setting must never stop a sync. A bare cache without the user's file has only defaults.
 */
export function readSettings(db: Db): Settings {
  if (!hasUserData(db)) return { ...DEFAULT_SETTINGS };
  const rows = statement<{ key: string; value: string }>(
    db,
    `SELECT key, value FROM user.settings`,
  ).all();
  const settings: Settings = { ...DEFAULT_SETTINGS };
  for (const { key, value } of rows) {
    if (!Object.hasOwn(Settings.shape, key)) continue;
    const parsed = Settings.partial().safeParse({ [key]: parseJson(value) });
    if (parsed.success) Object.assign(settings, parsed.data);
  }
  return settings;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const UPSERT_SETTING = `
  INSERT INTO user.settings (key, value, updated_at) VALUES (?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;

/** One row of user.settings as its JSON text, or null when never set (or no user file is attached). */
export function readSettingRow(db: Db, key: string): string | null {
  if (!hasUserData(db)) return null;
  const row = statement<{ value: string }>(db, `SELECT value FROM user.settings WHERE key = ?`).get(
    key,
  );
  return row?.value ?? null;
}

/** Writes one row of user.settings: `value` as JSON. */
export function writeSettingRow(db: Db, key: string, value: unknown, at: string): void {
  statement(db, UPSERT_SETTING).run(key, JSON.stringify(value), at);
}

/** Saves the settings named in `patch` (already validated), in one transaction. */
export function writeSettings(db: Db, patch: SettingsPatch, at: string): void {
  db.transaction(() => {
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined) writeSettingRow(db, key, value, at);
    }
  }).immediate();
}
