// Everything of the core that holds the connection: the decisions refresh, the store registry, the sync
// engine (compared before and after each run), the background sync and every contract service, put
// together on one connection; create-core.ts assembles them again when the cache is rebuilt.
import type {
  CacheStatus,
  CoreEvent,
  Services,
  SyncProgress,
  SyncReport,
} from '#shared/contract/index';
import type { Db } from './db/types';
import { decisionNews, recordDecisionNews } from './db/user/background';
import { createStoreRegistry } from './stores/registry';
import { createSyncEngine } from './sync/run';
import { createBackgroundSync, SYSTEM_TIMERS, type BackgroundFlags } from './sync/background';
import { trackDecisionChanges } from './decisions/changes';
import { createStoreLocks } from './sync/store-lock';
import { createThreadedSyncEngine } from './sync/thread/engine';
import { createAppService } from './services/app';
import { createAudiencesService } from './services/audiences';
import { createCampaignsService } from './services/campaigns';
import { createDecisionsService } from './services/decisions';
import { createDecisionRefresh } from './decisions/refresh';
import { createEditsService } from './services/edits';
import { createNotesService } from './services/notes';
import { createPortfolioService } from './services/portfolio';
import { createProgrammeService } from './services/programme';
import { createReportsService } from './services/reports';
import { createReviewService } from './services/review';
import { createSettingsService } from './services/settings';
import { createStoresService } from './services/stores';
import { createSyncService } from './services/sync';
import { createTagsService } from './services/tags';
import { createTeamLayer } from './team/service';
import { createTestsService } from './services/tests';
import { createClientReportsService } from './services/client-reports';
import type { CallMaker } from './decisions/call-threads';
import type { DemoStore } from './stores/demo';
import type { KeyRing } from './stores/keys';
import type { CoreDeps } from './deps';

/** What the assembly takes from the core that holds it (create-core.ts). */
export type AssemblyContext = {
  deps: CoreDeps;
  clock: () => number;
  emit(event: CoreEvent): void;
  keys: KeyRing;
  fetchImpl: typeof fetch;
  demoStore: () => DemoStore;
  callMaker: CallMaker;
  cacheFile: string;
  userDataFile: string;
  keychain: ReturnType<CoreDeps['secrets']['selfTest']>;
  /** The cache's state now (it moves: a background check may find it damaged). */
  cacheStatus: () => CacheStatus;
  /** The background sync's flags to start from (those of the assembly before a rebuild). */
  hostFlags: BackgroundFlags;
  rebuildCache(): Promise<{ storesKept: number }>;
  /** The background quick_check, once the window showed data. */
  checkInBackground(): void;
};

export function assembleCore(current: Db, ctx: AssemblyContext) {
  const {
    deps,
    clock,
    emit,
    keys,
    fetchImpl,
    demoStore,
    callMaker,
    cacheFile,
    userDataFile,
    keychain,
  } = ctx;
  const refresh = createDecisionRefresh({ db: current, clock, emit, maker: callMaker });
  // Calls of an older version, or of results cached before calls were kept, are made in the
  // background (a batch at a time): the window paints at once and reloads on decisions.changed.
  if (ctx.cacheStatus().state === 'ok' && !current.readonly) void refresh.request(null, false);
  const stores = createStoreRegistry({ db: current, keys, fetch: fetchImpl, demoStore });
  const onProgress = (progress: SyncProgress) => emit({ name: 'sync.progress', payload: progress });
  const onEditsChanged = (storeId: string) => emit({ name: 'edits.changed', payload: { storeId } });
  // One event per fact: the renderer refreshes its store list on 'sync.finished' itself.
  const finished = (report: SyncReport) => emit({ name: 'sync.finished', payload: report });
  const inner = deps.syncThread
    ? createThreadedSyncEngine({
        thread: deps.syncThread,
        init: { cacheFile, userDataFile, dataDir: deps.dataDir, demo: deps.demo },
        keys,
        clock,
        onProgress,
        onFinished: finished,
        onEditsChanged,
      })
    : createSyncEngine({
        db: current,
        lock: createStoreLocks(deps.dataDir),
        clientFor: stores.clientFor,
        clock,
        onProgress,
        onFinished: finished,
        onEditsChanged,
        rememberRate: stores.rememberRate,
      });
  // Every run is compared before and after: the Decisions view's badge counts the calls syncs changed.
  const tracked = trackDecisionChanges({
    db: current,
    engine: inner,
    onChanges(storeId, changes) {
      recordDecisionNews(current, storeId, changes, new Date(clock()).toISOString());
      emit({ name: 'decisions.news', payload: decisionNews(current, null) });
    },
  });
  const engine = tracked.engine;
  const locks = createStoreLocks(deps.dataDir);
  const background = createBackgroundSync({
    db: current,
    engine,
    rows: stores.rows,
    clock,
    timers: deps.timers ?? SYSTEM_TIMERS,
    random: deps.random ?? Math.random,
    emit,
    heldElsewhere(storeId) {
      try {
        const lock = locks(storeId);
        lock?.release();
        return lock === null;
      } catch {
        // The lock cannot be taken at all (a read-only disk): the run says so in its report.
        return false;
      }
    },
    // A damaged or read-only cache cannot be synced into: nothing to do in the background.
    enabled: (deps.backgroundSync ?? false) && ctx.cacheStatus().state === 'ok',
    initial: ctx.hostFlags,
  });
  const changed = () => emit({ name: 'stores.changed', payload: {} });
  // The team layer (team/): connected while a window's host runs; the CLI connects for `team sync`.
  const team = createTeamLayer({
    db: current,
    secrets: deps.secrets,
    clock,
    fetch: fetchImpl,
    stayConnected: deps.host !== 'cli',
    onChanged: (storeId, testIds) => emit({ name: 'team.changed', payload: { storeId, testIds } }),
    presenceChanged: (presence) => emit({ name: 'team.presence', payload: presence }),
    callOf: async (storeId, testId) =>
      (await services.decisions.list({ storeId })).rows.find((row) => row.testId === testId)
        ?.call ?? null,
  });
  const services: Services = {
    app: createAppService({
      ...deps,
      keychain,
      cacheStatus: ctx.cacheStatus,
      rebuildCache: ctx.rebuildCache,
      windowReady: () => {
        background.windowReady();
        ctx.checkInBackground();
      },
    }),
    stores: createStoresService({
      db: current,
      keys,
      stores,
      engine,
      clock,
      fetch: fetchImpl,
      changed,
      background,
    }),
    sync: createSyncService({
      db: current,
      engine,
      stores,
      emit,
      connectivity: (online) => background.connectivity(online),
    }),
    tests: createTestsService({ db: current, stores, clock, emit, fetch: fetchImpl }),
    campaigns: createCampaignsService(current),
    audiences: createAudiencesService(current),
    tags: createTagsService(current),
    reports: createReportsService({
      db: current,
      clock,
      saveFile: deps.saveFile,
      emit,
      decisionsSettled: () => refresh.idle(),
    }),
    edits: createEditsService({
      db: current,
      stores,
      engine,
      clock,
      emit,
      pushOnEdit: deps.pushOnEdit,
    }),
    review: createReviewService(current, clock, team.reviews),
    notes: createNotesService(current, clock, team.texts, team.reviews),
    portfolio: createPortfolioService(current, clock, refresh),
    settings: createSettingsService({ db: current, clock, emit }),
    decisions: createDecisionsService({
      db: current,
      clock,
      emit,
      refresh,
      shared: team.decisions,
    }),
    programme: createProgrammeService({ db: current, clock, refresh, shared: team.texts }),
    clientReports: createClientReportsService({
      db: current,
      clock,
      saveFile: deps.saveFile,
      printToPdf: deps.printToPdf,
      decisionsSettled: () => refresh.idle(),
      fetch: fetchImpl,
    }),
    team: team.service,
  };
  return {
    team,
    engine,
    services,
    stores,
    refresh,
    background,
    noteEdits: (storeId: string) => tracked.edited(storeId),
  };
}
