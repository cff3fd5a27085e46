// The outbox: unsent edits and creates, kept in the user's file, applied to the local copy at once and
// sent by one serial pusher per store. What the services, the sync and the core import from it (the
// rows themselves, and the cache's local copies, they read from db/user/outbox and db/cache/local-copies).
export {
  isSendable,
  type ConflictChoice,
  type ConflictRecord,
  type FieldConflict,
  type OutboxKind,
  type OutboxRow,
  type OutboxState,
  type PendingRecord,
} from './model';
export { hasSendable, pendingRecord, pendingRecords } from './store';
export { recordLookups } from './local-copies';
export { rebaseAll, rebasePulledLists, rebasePulledTests } from './rebase';
export { serverTest } from './kinds/test';
export { serverCampaign } from './kinds/campaign';
export {
  discardRecord,
  recordCreate,
  recordEdit,
  renameCreatedTag,
  resolveRecord,
  retryRecord,
  undoRow,
  type NewEdit,
} from './queue';
export { pushStore, type PushContext, type PushSummary } from './push';
export { isUnsentCreate, KINDS, kindOf, type OutboxKindSpec } from './kinds/index';
