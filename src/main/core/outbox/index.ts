// The outbox: unsent edits and creates, kept in the user's file, applied to the local copy at once and
// sent by one serial pusher per store. What the services, the sync and the core import from it.
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
export {
  clearReadOnly,
  deleteStoreOutbox,
  hasSendable,
  outboxCounts,
  outboxRow,
  outboxRows,
  pendingRecord,
  pendingRecords,
  readOnlyReason,
} from './store';
export {
  audienceById,
  audiencesNamed,
  campaignName,
  recordLookups,
  tagById,
  tagsNamed,
} from './local-copies';
export {
  rebaseAll,
  rebasePulledLists,
  rebasePulledTests,
  serverCampaign,
  serverTest,
} from './rebase';
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
