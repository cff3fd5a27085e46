// The bridge's names without their schemas: method and event names as plain lists, so the sandboxed
// preload can build `window.splitbook` without pulling zod in. The contract is checked against these.

/** Every contract method, by namespace. */
export const METHOD_NAMES = {
  app: ['info', 'openExternal', 'cacheStatus', 'rebuildCache', 'windowReady'],
  stores: ['list', 'add', 'openDemo', 'rename', 'setKey', 'remove', 'setBackgroundSync'],
  sync: ['start', 'startAll', 'cancel', 'issues', 'connectivity'],
  tests: ['list', 'facets', 'get', 'results', 'refreshResults', 'screenshot'],
  campaigns: ['list'],
  audiences: ['list'],
  tags: ['list'],
  reports: ['list', 'export', 'cancel'],
  edits: [
    'list',
    'counts',
    'editTest',
    'editCampaign',
    'createTag',
    'renameTag',
    'createAudience',
    'retry',
    'discard',
    'undo',
    'resolveConflict',
    'push',
  ],
  review: ['changes', 'markReviewed', 'history'],
  notes: ['get', 'set', 'annotations', 'addAnnotation', 'removeAnnotation'],
  portfolio: ['figures'],
  settings: ['get', 'set'],
  decisions: [
    'list',
    'lines',
    'settings',
    'setSettings',
    'setPlan',
    'planner',
    'readings',
    'news',
    'seen',
  ],
  clientReports: ['settings', 'setSettings', 'save', 'summary'],
  programme: ['backlog', 'learnings', 'setTakeaway'],
  team: [
    'status',
    'join',
    'leave',
    'share',
    'link',
    'unlink',
    'sync',
    'notes',
    'setNote',
    'comments',
    'addComment',
    'editComment',
    'deleteComment',
    'owner',
    'setOwner',
    'signOff',
    'signOffState',
    'owners',
    'commentNews',
    'markCommentsSeen',
    'linkOffers',
    'setOpen',
    'proposeSignOff',
    'changes',
    'decisionStamps',
  ],
} as const;

/** Commands the native menu sends to the renderer (the window knows the current store; main does not). */
export const MENU_COMMANDS = ['sync', 'syncAll', 'addStore', 'find', 'settings'] as const;
export type MenuCommand = (typeof MENU_COMMANDS)[number];

/** Every event the renderer may subscribe to: the core's events and the Electron menu's. */
export const EVENT_NAMES = [
  'sync.progress',
  'sync.finished',
  'sync.started',
  'stores.changed',
  'reports.progress',
  'edits.changed',
  'settings.changed',
  'results.changed',
  'decisions.changed',
  'decisions.progress',
  'decisions.news',
  'decisions.ready',
  'decisions.open',
  'team.changed',
  'menu.command',
  'team.presence',
] as const;
export type ChannelEventName = (typeof EVENT_NAMES)[number];

/** The one IPC channel that carries events from main to the renderer: (name, payload). */
export const EVENT_CHANNEL = 'splitbook:event';
