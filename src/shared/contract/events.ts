// Every event a host forwards to the renderer, and the core's events as one discriminated union.
import { z } from 'zod';
import { MENU_COMMANDS } from '../channels';
import { DecisionNews, DecisionsProgress, DecisionsReady } from './decisions';
import { ExportProgress } from './reports';
import { Settings } from './settings';
import { SyncProgress, SyncReport, type SyncPhase } from './sync';
import { TeamPresence } from './team';

/**
 * The kinds of data the window shows. Every event that changes data says which of these changed in
 * which store (`changesOf`), so a view reloads only when something it shows changed.
 */
export const RESOURCES = [
  'tests',
  'results',
  'decisions',
  'campaigns',
  'audiences',
  'tags',
  'edits',
  'notes',
  'review',
  'issues',
  'stores',
  'settings',
] as const;
export const Resource = z.enum(RESOURCES);
export type Resource = z.infer<typeof Resource>;

export const events = {
  'sync.progress': SyncProgress,
  /** A sync ended (whatever its outcome): the one event that says cached data and store state changed. */
  'sync.finished': SyncReport,
  /**
   * Syncs started (sync.start, sync.startAll): the stores show as syncing. No cached data changed
   * yet, so views keep what they show until progress or the end of the run.
   */
  'sync.started': z.object({
    storeIds: z.array(z.string()),
    /** Started by the app itself (sync/background.ts), not by the user: no dialog, no focus. */
    background: z.boolean().optional(),
  }),
  /** Stores were added, renamed, re-keyed or removed, or the cache was rebuilt: the store list is stale. */
  'stores.changed': z.object({}),
  /** An export moved on (throttled); the window shows it once an export takes over a second. */
  'reports.progress': ExportProgress,
  /** The outbox of a store changed (an edit made, sent, refused, resolved or undone). */
  'edits.changed': z.object({ storeId: z.string() }),
  /** The user's settings changed (from the window or the CLI in this process). */
  'settings.changed': Settings,
  /** One test's results were fetched outside a sync (Refresh now): views showing it reload. */
  'results.changed': z.object({ storeId: z.string(), testId: z.string() }),
  /**
   * Decisions were made again outside a sync (decision settings or a test's plan changed, or calls
   * cached by an older version were brought up to date): views showing calls of that store (null:
   * of any store) reload.
   */
  'decisions.changed': z.object({ storeId: z.string().nullable() }),
  /** Calls being made again in the background moved on (throttled, once it takes over a second). */
  'decisions.progress': DecisionsProgress,
  /** The count of calls changed since the user last looked moved (a sync changed some, or the user looked). */
  'decisions.news': DecisionNews,
  /**
   * A background sync changed calls of a store to ones that need the consultant: tell the user once.
   * The Electron host shows it as a desktop notification itself; a window that gets it shows it.
   */
  'decisions.ready': DecisionsReady,
  /** The user clicked a notification: open the Decisions view (or the test, when one is named). */
  'decisions.open': z.object({ storeId: z.string().nullable(), testId: z.string().nullable() }),
  /**
   * A shared store's team layer changed (a colleague's edit, the CLI beside the window, or this
   * window's own): its notes, takeaways, comments, owners or sign-offs of these tests (null: of the store).
   */
  'team.changed': z.object({ storeId: z.string(), testIds: z.array(z.string()).nullable() }),
  /** A native menu item the renderer acts on (it knows the current store; the main process does not). */
  'menu.command': z.object({ command: z.enum(MENU_COMMANDS) }),
  /** Another member opened or left a shared store in their window (the awareness of its document). */
  'team.presence': TeamPresence,
} as const;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

/** One event as it travels inside a process: its name and its payload, typed together. */
export type AppEvent = { [E in EventName]: { name: E; payload: EventPayload<E> } }[EventName];

/** The events the core itself emits (the menu's and a clicked notification's come from the Electron host). */
export type CoreEvent = Exclude<AppEvent, { name: 'menu.command' | 'decisions.open' }>;

/** What one event changed: resources of one store (null: of every store), or of one test of it. */
export type DataChange = {
  resources: readonly Resource[];
  storeId: string | null;
  /** Only this test's data changed (its store's lists show it too). */
  testId?: string;
};

/** What a sync writes: its report names the store, and a run may write all of these. */
export const SYNCED_RESOURCES: readonly Resource[] = [
  'tests',
  'results',
  'decisions',
  'campaigns',
  'audiences',
  'tags',
  'edits',
  'review',
  'issues',
  'stores',
];

/**
 * What each phase of a running sync writes (a record set aside is a sync issue). The tests phase
 * writes results and calls too: those of each written part of the listing are fetched beside it.
 */
const PHASE_WRITES: Record<SyncPhase, readonly Resource[]> = {
  tests: ['tests', 'tags', 'results', 'decisions', 'review', 'issues'],
  results: ['results', 'decisions', 'tests', 'review', 'issues'],
  campaigns: ['campaigns', 'issues'],
  audiences: ['audiences', 'issues'],
};

/** The data an event says changed; null for an event that changes none (progress of an export, a menu item). */
export function changesOf(event: AppEvent): DataChange | null {
  switch (event.name) {
    case 'sync.progress':
      return { resources: PHASE_WRITES[event.payload.phase], storeId: event.payload.storeId };
    case 'sync.finished':
      return { resources: SYNCED_RESOURCES, storeId: event.payload.storeId };
    // Added, renamed, removed or a rebuilt cache: anything of any store may differ.
    case 'stores.changed':
      return { resources: RESOURCES, storeId: null };
    // The local copies (tests, campaigns, tags, audiences) are "server copy + pending edits".
    case 'edits.changed':
      return {
        resources: ['edits', 'tests', 'campaigns', 'audiences', 'tags', 'review'],
        storeId: event.payload.storeId,
      };
    // The settings make every call (and the results' freshness).
    case 'settings.changed':
      return { resources: ['settings', 'decisions'], storeId: null };
    case 'results.changed':
      return {
        resources: ['results', 'decisions', 'tests', 'review'],
        storeId: event.payload.storeId,
        testId: event.payload.testId,
      };
    case 'decisions.changed':
      return { resources: ['decisions'], storeId: event.payload.storeId };
    // The layer's notes and takeaways (mirrored into the user file), and the rows' owners.
    case 'team.changed': {
      const only = event.payload.testIds?.length === 1 ? event.payload.testIds[0] : undefined;
      return {
        resources: ['notes', 'tests'],
        storeId: event.payload.storeId,
        ...(only === undefined ? {} : { testId: only }),
      };
    }
    case 'sync.started':
    case 'reports.progress':
    case 'decisions.progress':
    case 'decisions.news':
    case 'decisions.ready':
    case 'decisions.open':
    case 'menu.command':
    case 'team.presence':
      return null;
  }
}
