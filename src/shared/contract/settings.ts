// `settings.*`: the user's choices that change how Splitbook works (kept in the user's own file, never sent to the API).
import { z } from 'zod';
import { Empty, method } from './common';

/** How long an active test's cached results are used before a sync asks for them again. */
export const RESULTS_FRESHNESS = ['15m', '1h', '6h', '1d', 'manual'] as const;
export const ResultsFreshness = z.enum(RESULTS_FRESHNESS);
export type ResultsFreshness = z.infer<typeof ResultsFreshness>;

/**
 * One hour: the API does not say how often a store recomputes a test's results, so no copy can be
 * known to be current; an hour keeps a sitting's figures at most an hour old, while syncing again
 * within it costs only the listing and the tests that changed. "Refresh now" on a test fetches at once.
 */
export const DEFAULT_RESULTS_FRESHNESS: ResultsFreshness = '1h';

/** Each choice in words, for the window and the CLI. */
export const RESULTS_FRESHNESS_LABELS: Record<ResultsFreshness, string> = {
  '15m': 'Every 15 minutes',
  '1h': 'Every hour',
  '6h': 'Every 6 hours',
  '1d': 'Once a day',
  manual: 'Only when I ask',
};

const MINUTE_MS = 60_000;

/** The age after which a sync fetches an active test's results again; null: never on its own. */
export function freshnessMaxAgeMs(choice: ResultsFreshness): number | null {
  switch (choice) {
    case '15m':
      return 15 * MINUTE_MS;
    case '1h':
      return 60 * MINUTE_MS;
    case '6h':
      return 6 * 60 * MINUTE_MS;
    case '1d':
      return 24 * 60 * MINUTE_MS;
    case 'manual':
      return null;
  }
}

/** How often the app syncs each store by itself while it runs ("off": only when asked). */
export const BACKGROUND_SYNC = ['15m', '30m', '1h', '4h', 'off'] as const;
export const BackgroundSync = z.enum(BACKGROUND_SYNC);
export type BackgroundSync = z.infer<typeof BackgroundSync>;

/**
 * Half an hour: a sitting's figures stay current without a click, while a store with a few hundred
 * tests spends a listing and the tests that changed (results follow resultsFreshness) twice an hour.
 */
export const DEFAULT_BACKGROUND_SYNC: BackgroundSync = '30m';

export const BACKGROUND_SYNC_LABELS: Record<BackgroundSync, string> = {
  '15m': 'Every 15 minutes',
  '30m': 'Every 30 minutes',
  '1h': 'Every hour',
  '4h': 'Every 4 hours',
  off: 'Only when I ask',
};

/** The time between two background syncs of a store; null: none ("off"). */
export function backgroundSyncIntervalMs(choice: BackgroundSync): number | null {
  switch (choice) {
    case '15m':
      return 15 * MINUTE_MS;
    case '30m':
      return 30 * MINUTE_MS;
    case '1h':
      return 60 * MINUTE_MS;
    case '4h':
      return 4 * 60 * MINUTE_MS;
    case 'off':
      return null;
  }
}

export const Settings = z.object({
  /** Results of active tests: re-fetched by a sync once older than this ("manual": only on Refresh now). */
  resultsFreshness: ResultsFreshness,
  /** How often the app syncs every store by itself (a store may have its own: stores.setBackgroundSync). */
  backgroundSync: BackgroundSync,
  /** Tell the user (a desktop notification, or a toast) when a background sync changes a test's call. */
  notifications: z.boolean(),
});
export type Settings = z.infer<typeof Settings>;

export const DEFAULT_SETTINGS: Settings = {
  resultsFreshness: DEFAULT_RESULTS_FRESHNESS,
  backgroundSync: DEFAULT_BACKGROUND_SYNC,
  notifications: true,
};

/** A change of some settings; a field not named keeps its value, an unknown field is refused. */
export const SettingsPatch = Settings.partial().strict();
export type SettingsPatch = z.infer<typeof SettingsPatch>;

export const settings = {
  get: method(Empty, Settings),
  set: method(SettingsPatch, Settings),
};
