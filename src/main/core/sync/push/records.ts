// Moved to core/outbox/rebase.ts (issue 19): re-exported here only until the last importers read it from there.
export { rebaseAll, rebasePulledLists, rebasePulledTests } from '../../outbox';
