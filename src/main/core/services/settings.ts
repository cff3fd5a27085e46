// `settings.*`: the user's settings, kept in the user's own file; a change is announced as `settings.changed`.
import type { CoreEvent, Services } from '#shared/contract/index';
import { SettingsPatch } from '#shared/contract/settings';
import { problem } from '#shared/problem';
import { summarizeIssues } from '#shared/validation';
import { hasUserData } from '../db/user/attached';
import { readSettings, writeSettings } from '../db/user/settings';
import type { Db } from '../db/types';

export function createSettingsService(deps: {
  db: Db;
  clock: () => number;
  emit(event: CoreEvent): void;
}): Services['settings'] {
  const { db, clock, emit } = deps;
  return {
    get: async () => readSettings(db),
    async set(input) {
      // Hosts parse their input already; in-process callers (the CLI, tests) get the same refusal.
      const parsed = SettingsPatch.safeParse(input);
      if (!parsed.success) {
        throw problem(
          'validation',
          400,
          'Invalid setting',
          summarizeIssues(parsed.error.issues, { root: 'settings' }),
        );
      }
      if (!hasUserData(db) || db.readonly) {
        throw problem(
          'readOnly',
          409,
          'Settings cannot be saved',
          'The data folder cannot be written, so the settings keep their current values.',
        );
      }
      writeSettings(db, parsed.data, new Date(clock()).toISOString());
      const settings = readSettings(db);
      emit({ name: 'settings.changed', payload: settings });
      return settings;
    },
  };
}
