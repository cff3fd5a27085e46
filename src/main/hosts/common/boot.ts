// Starting the real core for the hosts that run under plain Node (browser host, CLI).
import { readFileSync } from 'node:fs';
import {
  createCore,
  createKeychainSecretStore,
  sourceCallThread,
  sourceSyncThread,
  type Core,
  type CoreDeps,
} from '#core/index';

/** The version in package.json (tsx runs from the source tree, so the file is two folders up from src/main). */
export function appVersion(): string {
  const pkg: unknown = JSON.parse(
    readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8'),
  );
  return typeof pkg === 'object' &&
    pkg !== null &&
    'version' in pkg &&
    typeof pkg.version === 'string'
    ? pkg.version
    : '0.0.0';
}

/** The core with the OS keychain, for a host that is not Electron. */
export function openCore(
  host: Exclude<CoreDeps['host'], 'electron'>,
  dataDir: string,
  extra: Pick<CoreDeps, 'saveFile' | 'backgroundSync' | 'integrityCheck'> = {},
): Promise<Core> {
  return createCore({
    dataDir,
    secrets: createKeychainSecretStore(),
    host,
    version: appVersion(),
    // These hosts run from the source under tsx: so does their sync thread.
    syncThread: sourceSyncThread(),
    // And so do the threads that make a refresh's calls, but in the CLI: a one-off whose refresh
    // is over before a thread under tsx (about a second) would have started.
    callThread: host === 'cli' ? undefined : sourceCallThread(),
    // The CLI queues an edit and exits at once, which would cut a send short: its next sync sends it.
    pushOnEdit: host !== 'cli',
    ...extra,
  });
}
