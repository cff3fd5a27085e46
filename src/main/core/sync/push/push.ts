// Moved to core/outbox/push.ts (issue 19): re-exported here only until the last importers read it from there.
export { pushStore, type PushSummary } from '../../outbox';
