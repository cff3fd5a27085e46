// Where the sync thread's code is when Splitbook runs from its TypeScript source (tsx, the tests):
// the worker loads tsx itself. The Electron build passes its bundled file instead (hosts/electron).
import { fileURLToPath } from 'node:url';
import type { SyncThreadOptions } from './protocol';

export function sourceSyncThread(): SyncThreadOptions {
  return {
    file: fileURLToPath(new URL('./worker.ts', import.meta.url)),
    execArgv: ['--import', 'tsx'],
  };
}
