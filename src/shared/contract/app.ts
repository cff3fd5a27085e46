// `app.*`: facts about the running app and its host.
import { z } from 'zod';
import { Problem } from '../problem';
import { Empty, method } from './common';

export const AppInfo = z.object({
  version: z.string(),
  host: z.enum(['electron', 'browser', 'cli']),
  keychain: z.object({ available: z.boolean(), message: z.string().nullable() }),
});
export type AppInfo = z.infer<typeof AppInfo>;

/**
 * Whether the cache can be used: ok, read-only (browse only), or corrupt (rebuild it from the stores);
 * and what this start did to the data folder that the user should hear of (a restore that was cut short,
 * finished or undone), or null.
 */
export const CacheStatus = z.object({
  state: z.enum(['ok', 'read-only', 'corrupt']),
  problem: Problem.nullable(),
  notice: z.object({ title: z.string(), detail: z.string() }).nullable(),
});
export type CacheStatus = z.infer<typeof CacheStatus>;

export const app = {
  info: method(Empty, AppInfo),
  openExternal: method(z.object({ url: z.url({ protocol: /^https?$/ }).max(2000) }), z.null()),
  cacheStatus: method(Empty, CacheStatus),
  /**
   * Moves the damaged cache aside, starts a fresh one with the stores the user's file lists (same ids),
   * and syncs them. The user's own data (splitbook-user.db) is not touched.
   */
  rebuildCache: method(Empty, z.object({ storesKept: z.int().nonnegative() })),
  /**
   * The window has painted its first rows (or has none to paint): background syncs may begin. Never
   * before, so a sync at start never delays what the user first sees.
   */
  windowReady: method(Empty, z.null()),
};
