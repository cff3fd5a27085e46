// Where the sync thread's code is when Splitbook runs from its TypeScript source (tsx, the tests):
// the worker loads tsx itself. The Electron build passes its bundled file instead (hosts/electron).
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SyncThreadOptions } from './protocol';

/**
 * The worker, the results decoder's (sync/decode) and tsx's loader, both found from this file's own location: `--import tsx` alone is
 * resolved from the working directory, so a CLI started from another folder had no sync thread.
 */
export function sourceSyncThread(): SyncThreadOptions {
  const tsxLoader = createRequire(import.meta.url).resolve('tsx');
  const execArgv = ['--import', pathToFileURL(tsxLoader).href];
  return {
    file: fileURLToPath(new URL('./worker.ts', import.meta.url)),
    execArgv,
    decoder: { file: fileURLToPath(new URL('../decode/worker.ts', import.meta.url)), execArgv },
  };
}
