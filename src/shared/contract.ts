// The bridge contract: every method a host serves (name -> zod input, output) and every event.
// The renderer's Bridge type, the preload, the Electron IPC handlers and the browser host all derive from it.
import { z } from 'zod';
import { Campaign, CustomAudience, Test, TestResults } from './api';
import { Problem, type Envelope } from './problem';
import { MENU_COMMANDS, type EVENT_NAMES, type METHOD_NAMES } from './channels';

// ---------- shared pieces ----------

export const StoreId = z.string().min(1).max(64);

export const SYNC_PHASES = ['tests', 'results', 'campaigns', 'audiences'] as const;
export const SyncPhase = z.enum(SYNC_PHASES);
export type SyncPhase = z.infer<typeof SyncPhase>;

export const SYNC_STATES = ['never', 'idle', 'syncing', 'error', 'offline'] as const;
export const SyncState = z.enum(SYNC_STATES);

export const SyncProgress = z.object({
  storeId: StoreId,
  phase: SyncPhase,
  done: z.int().nonnegative(),
  total: z.int().nonnegative().nullable(),
});
export type SyncProgress = z.infer<typeof SyncProgress>;

export const SYNC_OUTCOMES = ['ok', 'partial', 'offline', 'error', 'cancelled'] as const;
export const SyncOutcome = z.enum(SYNC_OUTCOMES);
export type SyncOutcome = z.infer<typeof SyncOutcome>;

export const SyncReport = z.object({
  storeId: StoreId,
  outcome: SyncOutcome,
  startedAt: z.string(),
  finishedAt: z.string(),
  requests: z.int().nonnegative(),
  testsSeen: z.int().nonnegative(),
  testsRemoved: z.int().nonnegative(),
  resultsFetched: z.int().nonnegative(),
  setAside: z.int().nonnegative(),
  problem: Problem.nullable(),
});
export type SyncReport = z.infer<typeof SyncReport>;

export const KEY_STORAGES = ['keychain', 'session', 'none'] as const;

export const StoreSummary = z.object({
  id: StoreId,
  name: z.string(),
  baseUrl: z.string(),
  /** 'demo' stores run the simulator in-process and need no key. */
  kind: z.enum(['api', 'demo']),
  /** Where the key lives: the OS keychain, this session's memory only, or nowhere (demo, or lost). */
  keyStorage: z.enum(KEY_STORAGES),
  sync: z.object({
    state: SyncState,
    lastSyncedAt: z.string().nullable(),
    /** When the last sync ended, whatever its outcome (an offline attempt included). */
    lastAttemptAt: z.string().nullable(),
    lastOutcome: SyncOutcome.nullable(),
    lastProblem: Problem.nullable(),
    progress: SyncProgress.nullable(),
    /** When each resource was last synced in full, or null when it never was. */
    resources: z.object({
      tests: z.string().nullable(),
      results: z.string().nullable(),
      campaigns: z.string().nullable(),
      audiences: z.string().nullable(),
    }),
  }),
  counts: z.object({ tests: z.int(), removed: z.int(), setAside: z.int() }),
});
export type StoreSummary = z.infer<typeof StoreSummary>;

export const TEST_SORT_KEYS = [
  'title',
  'status',
  'goal',
  'startAt',
  'endAt',
  'updatedAt',
  'probabilityToWin',
  'lift',
] as const;
export const TestSortKey = z.enum(TEST_SORT_KEYS);
export type TestSortKey = z.infer<typeof TestSortKey>;

/** Filters of the test list. `storeId` null means all stores. */
export const TestFilter = z.object({
  storeId: StoreId.nullable().default(null),
  statuses: z.array(z.string().max(64)).max(20).default([]),
  stage: z.string().max(64).nullable().default(null),
  goal: z.string().max(200).nullable().default(null),
  device: z.string().max(200).nullable().default(null),
  tag: z.string().max(200).nullable().default(null),
  campaignId: z.string().max(64).nullable().default(null),
  search: z.string().max(200).default(''),
  includeRemoved: z.boolean().default(false),
});
export type TestFilter = z.infer<typeof TestFilter>;
export type TestFilterInput = z.input<typeof TestFilter>;

export const TestListInput = TestFilter.extend({
  sort: z
    .object({ key: TestSortKey, dir: z.enum(['asc', 'desc']) })
    .default({ key: 'updatedAt', dir: 'desc' }),
  /** Opaque keyset cursor from the previous page's `nextCursor`. */
  cursor: z.string().max(2000).nullable().default(null),
  limit: z.int().min(1).max(2000).default(500),
});
export type TestListInput = z.infer<typeof TestListInput>;

export const TestRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  id: z.string(),
  title: z.string(),
  status: z.string(),
  stage: z.string(),
  goal: z.string(),
  device: z.string(),
  startAt: z.string().nullable(),
  endAt: z.string().nullable(),
  updatedAt: z.string(),
  campaignName: z.string().nullable(),
  tags: z.array(z.string()),
  /** The variant's probability to win from the API's lifecycle, when results are cached. */
  probabilityToWin: z.number().nullable(),
  lift: z.number().nullable(),
  visitors: z.int().nullable(),
  /** The lifecycle tier of the test's goal ('significant' makes a lift a verdict), when results are cached. */
  tier: z.string().nullable(),
  removed: z.boolean(),
});
export type TestRow = z.infer<typeof TestRow>;

export const TestPage = z.object({
  rows: z.array(TestRow),
  nextCursor: z.string().nullable(),
  total: z.int(),
});
export type TestPage = z.infer<typeof TestPage>;

export const TestRef = z.object({ storeId: StoreId, testId: z.string().max(64) });

export const TestDetail = z.object({
  storeId: StoreId,
  storeName: z.string(),
  test: Test,
  removed: z.boolean(),
  syncedAt: z.string(),
  resultsSyncedAt: z.string().nullable(),
});
export type TestDetail = z.infer<typeof TestDetail>;

export const ResultsDetail = z.object({
  storeId: StoreId,
  testId: z.string(),
  results: TestResults,
  fetchedAt: z.string(),
});
export type ResultsDetail = z.infer<typeof ResultsDetail>;

export const Facets = z.object({
  statusCounts: z.record(z.string(), z.int()),
  stages: z.array(z.string()),
  goals: z.array(z.string()),
  devices: z.array(z.string()),
  tags: z.array(z.string()),
  campaigns: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type Facets = z.infer<typeof Facets>;

export const CampaignRow = z.object({ storeId: StoreId, storeName: z.string(), campaign: Campaign });
export type CampaignRow = z.infer<typeof CampaignRow>;

export const AudienceRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  audience: CustomAudience,
  testCount: z.int(),
});
export type AudienceRow = z.infer<typeof AudienceRow>;

export const TagRow = z.object({ storeId: StoreId, id: z.string(), name: z.string(), testCount: z.int() });
export type TagRow = z.infer<typeof TagRow>;

export const SetAsideRecord = z.object({
  storeId: StoreId,
  resource: z.string(),
  recordId: z.string().nullable(),
  error: z.string(),
  seenAt: z.string(),
});
export type SetAsideRecord = z.infer<typeof SetAsideRecord>;

export const AppInfo = z.object({
  version: z.string(),
  host: z.enum(['electron', 'browser', 'cli']),
  keychain: z.object({ available: z.boolean(), message: z.string().nullable() }),
});
export type AppInfo = z.infer<typeof AppInfo>;

const ScopeInput = z.object({ storeId: StoreId.nullable().default(null) });
const StoreInput = z.object({ storeId: StoreId });
const Empty = z.object({}).default({});

export const AddStoreInput = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100),
  baseUrl: z.url({ protocol: /^https?$/, error: 'Base URL must be an http(s) address' }).max(500),
  apiKey: z.string().trim().min(1, 'API key is required').max(4096),
  /** Keep the key in memory for this session only (when no keychain is usable). */
  sessionOnly: z.boolean().default(false),
});
export type AddStoreInput = z.input<typeof AddStoreInput>;

// ---------- the method table ----------

function method<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

export const contract = {
  app: {
    info: method(Empty, AppInfo),
    openExternal: method(z.object({ url: z.url({ protocol: /^https?$/ }).max(2000) }), z.null()),
  },
  stores: {
    list: method(Empty, z.array(StoreSummary)),
    add: method(AddStoreInput, StoreSummary),
    openDemo: method(Empty, StoreSummary),
    rename: method(StoreInput.extend({ name: z.string().trim().min(1).max(100) }), StoreSummary),
    setKey: method(
      StoreInput.extend({ apiKey: z.string().trim().min(1).max(4096), sessionOnly: z.boolean().default(false) }),
      StoreSummary,
    ),
    remove: method(StoreInput, z.null()),
  },
  sync: {
    start: method(StoreInput, z.object({ started: z.boolean() })),
    startAll: method(Empty, z.object({ started: z.array(StoreId) })),
    cancel: method(StoreInput, z.object({ cancelled: z.boolean() })),
    issues: method(ScopeInput, z.array(SetAsideRecord)),
  },
  tests: {
    list: method(TestListInput, TestPage),
    facets: method(TestFilter, Facets),
    get: method(TestRef, TestDetail),
    results: method(TestRef, ResultsDetail.nullable()),
  },
  campaigns: {
    list: method(ScopeInput, z.array(CampaignRow)),
  },
  audiences: {
    list: method(ScopeInput, z.array(AudienceRow)),
  },
  tags: {
    list: method(ScopeInput, z.array(TagRow)),
  },
} as const;

export type Contract = typeof contract;
export type Namespace = keyof Contract;
export type MethodName<N extends Namespace> = keyof Contract[N] & string;
type Method = { input: z.ZodType; output: z.ZodType };
type At<N extends Namespace, M extends MethodName<N>> = Contract[N][M] extends Method ? Contract[N][M] : never;
export type InputOf<N extends Namespace, M extends MethodName<N>> = z.input<At<N, M>['input']>;
export type ParsedInputOf<N extends Namespace, M extends MethodName<N>> = z.output<At<N, M>['input']>;
export type OutputOf<N extends Namespace, M extends MethodName<N>> = z.output<At<N, M>['output']>;

/** Every method as its channel name `namespace.method`, the wire name in IPC and HTTP. */
export const CHANNELS = Object.entries(contract).flatMap(([ns, methods]) =>
  Object.keys(methods).map((m) => `${ns}.${m}`),
);

export function lookupMethod(channel: string): Method | null {
  const [ns, m, ...rest] = channel.split('.');
  if (!ns || !m || rest.length > 0 || !Object.hasOwn(contract, ns)) return null;
  const methods: Record<string, Method> = contract[ns as Namespace];
  return Object.hasOwn(methods, m) ? (methods[m] ?? null) : null;
}

// ---------- events ----------

export const events = {
  'sync.progress': SyncProgress,
  'sync.finished': SyncReport,
  'stores.changed': z.object({}),
  /** A native menu item the renderer acts on (it knows the current store; the main process does not). */
  'menu.command': z.object({ command: z.enum(MENU_COMMANDS) }),
} as const;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

// ---------- what the renderer sees ----------

/** One async function per method: resolves to data or a problem (an Envelope), never throws across. */
export type Bridge = {
  [N in Namespace]: {
    [M in MethodName<N>]: (input: InputOf<N, M>) => Promise<Envelope<OutputOf<N, M>>>;
  };
} & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

/** The services a core offers: the same table, called in-process with parsed input. */
export type Services = {
  [N in Namespace]: {
    [M in MethodName<N>]: (input: ParsedInputOf<N, M>) => Promise<OutputOf<N, M>>;
  };
};

// ---------- the zod-free name lists (channels.ts) must say exactly what the contract says ----------

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type ContractMethods = { [N in Namespace]: MethodName<N> };
type ListedMethods = { [N in keyof typeof METHOD_NAMES]: (typeof METHOD_NAMES)[N][number] };
const methodsMatch: Same<ContractMethods, ListedMethods> = true;
const eventsMatch: Same<EventName, (typeof EVENT_NAMES)[number]> = true;
void methodsMatch;
void eventsMatch;
