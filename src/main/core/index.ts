// The core's public face for hosts: createCore, its dependencies, its events and the keychain stores.
export { createCore, DATABASE_FILE, USER_DATA_FILE, type CoreDeps } from './create-core';
export type { Core, CoreBackground, CoreData, CoreEventListener } from './types';
export type { BackupInfo, BackupStore } from './backup/backup-file';
export type { RestoreSummary } from './backup/restore';
export type { BackgroundTimers } from './sync/background';
export { createKeychainSecretStore, createMemorySecretStore, type SecretStore } from './secrets';
export { nextSyncReport, syncAndWait } from './sync/wait';
export { sourceSyncThread } from './sync/thread/source';
export { sourceCallThread } from './decisions/call-threads';
export type { SyncThreadOptions } from './sync/thread/protocol';
export type { ExportRequest, ExportOptions } from './reports/export';
export type { PrintToPdf, SaveFile, SaveFormat, SaveTarget } from './reports/save';
export { REPORTS } from './reports/registry';
export { storageProblem } from './db/storage-errors';
