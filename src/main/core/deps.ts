// What a host gives the core (createCore's dependencies): its folder, keychain, clock and what only a host can do.
import { type SecretStore } from './secrets';
import { type BackgroundTimers } from './sync/background';
import type { SyncThreadOptions } from './sync/thread/protocol';
import { type CallThreadOptions } from './decisions/call-threads';
import type { PrintToPdf, SaveFile } from './reports/save';

export interface CoreDeps {
  /** Folder of the cache database; created if missing. */
  dataDir: string;
  /** The OS keychain (or a stand-in for it). */
  secrets: SecretStore;
  fetch?: typeof fetch;
  clock?: () => number;
  host: 'electron' | 'browser' | 'cli';
  version: string;
  /** Opens a validated http(s) link outside the app; hosts that cannot do so leave it out. */
  openExternal?: (url: string) => Promise<void>;
  /** Where an export from the window is saved (a dialog, a download); hosts that cannot save leave it out. */
  saveFile?: SaveFile;
  /**
   * When the cache's quick_check runs: 'on-open' (the default: the CLI, tests) before anything is read,
   * or 'background' (the window's hosts) on a thread of its own once the window shows data — still on
   * open after a process that used the folder ended without closing.
   */
  integrityCheck?: 'on-open' | 'background';
  /** Prints a client report's HTML to PDF; only Electron can (a hidden window), others leave it out. */
  printToPdf?: PrintToPdf;
  /** Simulator settings of the demo store (tests shrink it). */
  demo?: { tests?: number; seed?: number };
  /** Send an edit as soon as it is made (default true); off, edits wait for a sync or edits.push. */
  pushOnEdit?: boolean;
  /**
   * Run syncs on a thread of their own (sync/thread/), so the main thread stays free to answer the
   * window. The hosts set it; left out, syncs run on the calling thread (with `fetch` as given,
   * which a thread cannot take; a `clock` of the core's own the thread is shown, sync/thread/protocol.ts).
   */
  syncThread?: SyncThreadOptions;
  /**
   * Make the calls of a refresh (a settings change makes them all again) on a thread of their own
   * (decisions/call-threads.ts): the hosts set it; left out, they are made on the calling thread.
   */
  callThread?: CallThreadOptions;
  /**
   * Sync every store by itself (sync/background.ts): the app's hosts set it; the CLI, a one-off, does
   * not (its syncs still move each store's back-off and refused key, which `stores` shows).
   */
  backgroundSync?: boolean;
  /** The timers background syncs wait on (tests drive time with their own); the process's by default. */
  timers?: BackgroundTimers;
  /** The jitter of a back-off, 0..1 (Math.random by default). */
  random?: () => number;
  /**
   * Tests only: told each step of a restore's swap once it is made ('journal' written, 'renamed-N', the
   * new files 'opened'), so a test can kill the process there and see the next start finish the restore.
   */
  onRestoreStep?: (step: string) => void;
}
