// Whether a new key reads the same store as the cache: the ids its listing shows first and last against
// the tests cached for the store. A key of another store shares none of them.

export type StoreIdentity =
  | { same: true }
  | {
      same: false;
      /** Tests cached for the store (removed ones included). */
      cached: number;
      /** Tests the new key's listing shows in all. */
      listed: number;
      /** Of those, how many Splitbook looked at. */
      sampled: number;
    };

/**
 * A store is the same when any test the new key lists (its first and last pages: the newest and the
 * oldest, which a store keeps) is cached for it. With nothing cached, or nothing listed, there is
 * nothing to mix: the same.
 */
export function compareListing(
  cachedIds: ReadonlySet<string>,
  sampledIds: readonly string[],
  listed: number,
): StoreIdentity {
  if (cachedIds.size === 0 || sampledIds.length === 0) return { same: true };
  if (sampledIds.some((id) => cachedIds.has(id))) return { same: true };
  return { same: false, cached: cachedIds.size, listed, sampled: sampledIds.length };
}
