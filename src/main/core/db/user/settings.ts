// Reads and writes of the user's settings (user file, one row per setting, the value as JSON).
import { DEFAULT_SETTINGS, Settings, type SettingsPatch } from '#shared/contract/settings';
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';

const ALL_SETTINGS = read<{ key: string; value: string }>(`SELECT key, value FROM user.settings`);
const SETTING = read<{ value: string }, { key: string }>(
  `SELECT value FROM user.settings WHERE key = @key`,
);

/**
 * Every setting, a default standing in for one never set or unreadable (written by a newer version,
 * say): a setting must never stop a sync. A bare cache without the user's file has only defaults.
 */
export function readSettings(db: Db): Settings {
  if (!hasUserData(db)) return { ...DEFAULT_SETTINGS };
  const rows = ALL_SETTINGS.all(db);
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

const UPSERT_SETTING = write<{ key: string; value: string; at: string }>(`
  INSERT INTO user.settings (key, value, updated_at) VALUES (@key, @value, @at)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);

/** One row of user.settings as its JSON text, or null when never set (or no user file is attached). */
export function readSettingRow(db: Db, key: string): string | null {
  if (!hasUserData(db)) return null;
  const row = SETTING.get(db, { key });
  return row?.value ?? null;
}

/** Writes one row of user.settings: `value` as JSON. */
export function writeSettingRow(db: Db, key: string, value: unknown, at: string): void {
  UPSERT_SETTING.run(db, { key, value: JSON.stringify(value), at });
}

/** Saves the settings named in `patch` (already validated), in one transaction. */
export function writeSettings(db: Db, patch: SettingsPatch, at: string): void {
  db.transaction(() => {
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined) writeSettingRow(db, key, value, at);
    }
  }).immediate();
}
