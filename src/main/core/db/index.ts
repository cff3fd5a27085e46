// The local SQLite cache: open it, write what a sync fetched (one module per resource), read it back
// in the bridge's shapes.
export { openDatabase } from './open';
export { MIGRATIONS, migrate, schemaVersion, type Migration } from './migrations';
export * from './stores';
export * from './sync-state';
export * from './tests';
export * from './results';
export * from './campaigns';
export * from './audiences';
export * from './set-aside';
export * from './key-journal';
export * from './reads';
export * from './types';
export * from './review';
export * from './notes';
export { hasUserData } from './user-data/attached';
export * from './settings';
export * from './decisions';
export * from './background';
