// `app.*`: the app's version, host and keychain verdict, opening links outside the app, and the cache's health.
import type { CacheStatus, Services } from '#shared/contract/index';
import { problem } from '#shared/problem';
import type { KeychainStatus } from '../secrets';

export interface AppServiceDeps {
  version: string;
  host: 'electron' | 'browser' | 'cli';
  keychain: Promise<KeychainStatus>;
  openExternal?: (url: string) => Promise<void>;
  cacheStatus(): CacheStatus;
  rebuildCache(): Promise<{ storesKept: number }>;
  /** The window painted its first rows: background syncs may start (sync/background.ts). */
  windowReady(): void;
}

export function createAppService(deps: AppServiceDeps): Services['app'] {
  return {
    async info() {
      return { version: deps.version, host: deps.host, keychain: await deps.keychain };
    },
    async openExternal({ url }) {
      if (!deps.openExternal) {
        throw problem(
          'validation',
          501,
          'Opening links is not available here',
          'Copy the link instead.',
        );
      }
      await deps.openExternal(url);
      return null;
    },
    cacheStatus: async () => deps.cacheStatus(),
    rebuildCache: () => deps.rebuildCache(),
    async windowReady() {
      deps.windowReady();
      return null;
    },
  };
}
