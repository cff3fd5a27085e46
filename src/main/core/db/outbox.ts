// Moved to core/outbox/store.ts (issue 19): re-exported here only until the last importers read it from there.
export {
  clearReadOnly,
  deleteStoreOutbox,
  outboxCounts,
  outboxRows,
  readOnlyReason,
} from '../outbox/store';
