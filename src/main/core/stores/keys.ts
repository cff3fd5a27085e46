// Resolves a store's API key: from this session's memory, else the OS keychain. Never persisted anywhere else.
import { problem } from '#shared/problem';
import type { SecretStore } from '../secrets';

export interface KeyRing {
  /** The key of a store, or a problem naming what the user must do. */
  get(storeId: string, storeName: string): Promise<string>;
  /** Saves a key in the keychain, or in memory only when `sessionOnly`. */
  save(storeId: string, key: string, sessionOnly: boolean): Promise<'keychain' | 'session'>;
  /** Deletes the key everywhere; keychain errors are raised only when the key was kept there. */
  forget(storeId: string, inKeychain: boolean): Promise<void>;
}

export function createKeyRing(keychain: SecretStore, session: SecretStore): KeyRing {
  // Keys read once are kept in memory so the keychain is asked once per store and session.
  const cache = new Map<string, string>();
  return {
    async get(storeId, storeName) {
      const cached =
        cache.get(storeId) ?? (await session.get(storeId)) ?? (await keychain.get(storeId));
      if (!cached) {
        throw problem(
          'unauthorized',
          401,
          'No API key for this store',
          `Splitbook has no API key for "${storeName}" (a key kept for one session is gone after a restart). Set the key again to sync.`,
        );
      }
      cache.set(storeId, cached);
      return cached;
    },
    async save(storeId, key, sessionOnly) {
      if (sessionOnly) {
        await session.set(storeId, key);
        // A key moved to the session must not linger in the keychain.
        await keychain.delete(storeId).catch(() => false);
      } else {
        await keychain.set(storeId, key);
        await session.delete(storeId);
      }
      cache.set(storeId, key);
      return sessionOnly ? 'session' : 'keychain';
    },
    async forget(storeId, inKeychain) {
      cache.delete(storeId);
      await session.delete(storeId);
      try {
        await keychain.delete(storeId);
      } catch (error) {
        if (inKeychain) throw error;
      }
    },
  };
}
