// The local SQLite cache: open it, write what a sync fetched, read it back in the bridge's shapes.
export { openDatabase } from './open';
export { MIGRATIONS, migrate, schemaVersion, type Migration } from './migrations';
export * from './ingest';
export * from './reads';
export * from './types';
