// What a host gets from the core: the contract's services, its typed events, and a way to shut down.
import type { Writable } from 'node:stream';
import type { CoreEvent, Services } from '#shared/contract/index';
import type { ClientReportScope } from '#shared/contract/client-reports';
import type { BuiltReport } from './reports/client/build';
import type { BackupInfo } from './backup/backup-file';
import type { RestoreSummary } from './backup/restore';
import type { ExportOptions, ExportRequest } from './reports/export';

/** Exports for a host that writes them itself (the CLI: a file, or standard output). */
export interface CoreReports {
  /** Streams the export into `out`; CSV leaves it open, a workbook ends it. Returns data rows. */
  write(request: ExportRequest, out: Writable, options?: Partial<ExportOptions>): Promise<number>;
  /** Writes the export to a file atomically (nothing left behind on failure). Returns data rows. */
  writeFile(
    request: ExportRequest,
    path: string,
    options?: Partial<ExportOptions>,
  ): Promise<number>;
  /**
   * A client report (HTML, or its plain-text summary) from the cache, its screenshots embedded as it is
   * written; written to `path` atomically when given. `detail`: a store report's full sections.
   */
  client(
    scope: ClientReportScope,
    format: 'html' | 'text',
    path?: string,
    options?: { detail?: boolean },
  ): Promise<BuiltReport>;
}

/** The user's own data as one file (core/backup/): for the hosts, never over the bridge (it takes paths). */
export interface CoreData {
  /** Writes a backup to `out` while the app runs (SQLite's online backup); never a key. */
  backup(out: string): Promise<BackupInfo>;
  /** What a backup holds, after checking it; throws a problem saying why it cannot be restored. */
  inspect(file: string): Promise<BackupInfo>;
  /** Replaces the folder's data with the backup's; refused while another Splitbook has the folder open. */
  restore(file: string): Promise<RestoreSummary>;
}

/** Receives every event the core emits; `event.name` narrows `event.payload`. */
export type CoreEventListener = (event: CoreEvent) => void;

/** What a host tells the core's background syncs about the machine and the window (sync/background.ts). */
export interface CoreBackground {
  /** The window painted its first rows. */
  windowReady(): void;
  /** The network went away or came back. */
  connectivity(online: boolean): void;
  /** The machine woke from sleep. */
  wake(): void;
}

export interface Core {
  /** One async function per contract method, taking already-parsed input. Throws ProblemError. */
  readonly services: Services;
  readonly reports: CoreReports;
  readonly data: CoreData;
  readonly background: CoreBackground;
  /** Subscribe to every event the core emits; returns an unsubscribe function. */
  subscribe(listener: CoreEventListener): () => void;
  /**
   * Notices stores another process added, removed, renamed or re-keyed (the CLI beside the window)
   * and emits stores.changed; the window's hosts start it. Returns the stop (close stops it too).
   */
  watchStores(intervalMs?: number): () => void;
  /** Cancels syncs, closes the database. */
  close(): Promise<void>;
}
