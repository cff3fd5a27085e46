// The core: one database, the key ring, the sync engine and every contract service, free of any host.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CacheStatus, CoreEvent, Services } from '#shared/contract/index';
import { PROBLEM_TYPES, ProblemError, problem } from '#shared/problem';
import { METHOD_NAMES } from '#shared/channels';
import { createProxy, lookup } from '#shared/rpc';
import type { Core, CoreEventListener } from './types';
import { assembleCore } from './assemble';
import type { CoreDeps } from './deps';
import { backfillAlerts } from './decisions/results';
import { hasUserData } from './db/user/attached';
import { openDatabase, openedOnFullDisk } from './db/open';
import { orphanedKeyAccounts } from './db/cache/key-journal';
import type { Db } from './db/types';
import {
  CORRUPT_CACHE,
  diskFullProblem,
  readOnlyProblem,
  storageFailure,
} from './db/storage-errors';
import { adoptSalvagedStores, replaceCache, salvageStores } from './rebuild';
import { copyStoreList, listStoreRows } from './db/cache/stores';
import { listedStores } from './db/user/stores';
import { createMemorySecretStore } from './secrets';
import { createKeyRing } from './stores/keys';
import { createDemoStore, type DemoStore } from './stores/demo';
import { type BackgroundFlags } from './sync/background';
import { inPlaceCallMaker, threadCallMaker } from './decisions/call-threads';
import { cleanOrphanedKeys } from './services/stores';
import { rebaseAll } from './outbox';
import { buildClientReport } from './reports/client/build';
import { checkIntegrityInBackground, endedUncleanly, markRunning } from './db/integrity';
import { writeExport } from './reports/export';
import { outputTarget, writeFileAtomically } from './reports/write-file';
import { readBackup, writeBackup, type BackupInfo } from './backup/backup-file';
import { holdFolder, takeFolderAlone, type FolderHold } from './backup/folder-lock';
import { recoverFolder, stageRestore, swapIn, type RestoreSummary } from './backup/restore';
import { watchStores } from './stores/watch';

export type { CoreDeps } from './deps';

export const DATABASE_FILE = 'splitbook.db';
/** How often a window's host looks for stores changed by another process (the CLI): one pragma a tick. */
export const STORE_WATCH_MS = 2000;
/** The user's own data, beside the cache and attached to its connection (see db/open.ts). */
export const USER_DATA_FILE = 'splitbook-user.db';

export async function createCore(deps: CoreDeps): Promise<Core> {
  const clock = deps.clock ?? Date.now;
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  // The user's data is theirs alone: a folder made here is readable by its owner only (its files 0600).
  mkdirSync(deps.dataDir, { recursive: true, mode: 0o700 });
  const cacheFile = join(deps.dataDir, DATABASE_FILE);
  const userDataFile = join(deps.dataDir, USER_DATA_FILE);
  // A restore cut short (the process killed between its renames) is finished or undone before anything
  // is opened, and what it did is said to the user (cacheStatus' notice, the CLI's first line).
  const recovered = recoverFolder(deps.dataDir, { cache: cacheFile, user: userDataFile });
  // Told for the life of this core, or until a restore of its own replaces the data it speaks of.
  let notice = recovered ? { title: recovered.title, detail: recovered.detail } : null;

  const listeners = new Set<CoreEventListener>();
  /** Store watches the hosts started (watchStores), stopped at close. */
  const watches = new Set<() => void>();
  function emit(event: CoreEvent): void {
    for (const listener of listeners) listener(event);
    // A sync that met a damaged cache makes the whole app say so and offer the rebuild.
    if (event.name === 'sync.finished' && event.payload.problem?.type === PROBLEM_TYPES.corrupt) {
      cache = { state: 'corrupt', problem: event.payload.problem, notice };
    }
    // Background syncs follow every sync's end (whoever started it), the settings and the stores.
    const current = assembled;
    if (current === null) return;
    if (event.name === 'sync.finished') current.background.finished(event.payload);
    else if (event.name === 'settings.changed' || event.name === 'stores.changed')
      current.background.replan();
    else if (event.name === 'edits.changed') current.noteEdits(event.payload.storeId);
  }
  /** The assembly events go to; null while the first is being built. */
  let assembled: ReturnType<typeof assembleCore> | null = null;
  /** Where the host stood (window painted, online), kept across a rebuilt cache. */
  let hostFlags: BackgroundFlags = { windowReady: false, online: true };

  let cache: CacheStatus = { state: 'ok', problem: null, notice };
  // Held while this core is open, so a restore never swaps the files under it (backup/folder-lock.ts).
  let folder: FolderHold = holdFolder(deps.dataDir);
  // A crash, a kill or a power cut since the last start: check before reading, as a damaged page is
  // likelier. Asked at every start, so the marks of killed processes are removed whatever the host.
  const unclean = endedUncleanly(deps.dataDir);
  const checkLater = deps.integrityCheck === 'background' && !unclean;
  const unmark = markRunning(deps.dataDir);
  let db: Db;
  try {
    db = openCache(!checkLater);
  } catch (error) {
    folder.release();
    unmark();
    throw error;
  }

  /** Opens the folder's files (at start, and again after a restore that did not happen); sets `cache`. */
  function openCache(quickCheck: boolean): Db {
    let opened: Db;
    cache = { state: 'ok', problem: null, notice };
    try {
      opened = openDatabase(cacheFile, { userDataFile, quickCheck });
      if (opened.readonly)
        cache = { state: 'read-only', problem: readOnlyProblem(deps.dataDir), notice };
      // No space left: it starts all the same (reading needs none), and says why nothing can be saved.
      else if (openedOnFullDisk(opened))
        cache = {
          state: 'read-only',
          problem: diskFullProblem(
            deps.dataDir,
            'You can keep browsing what is cached; syncing and changes wait until there is space.',
          ),
          notice,
        };
    } catch (error) {
      if (storageFailure(error) !== 'corrupt') throw error;
      // A damaged cache does not stop the app: it starts on an empty stand-in (the user's own file
      // attached as always) and offers app.rebuildCache.
      cache = {
        state: 'corrupt',
        problem: error instanceof ProblemError ? error.problem : CORRUPT_CACHE,
        notice,
      };
      return standIn();
    }

    if (cache.state === 'ok') {
      try {
        prepare(opened, clock);
      } catch (error) {
        // Unchecked on open (checked in the background later), a damaged page can still meet the start's
        // own reads: then the app starts on the stand-in as if the check on open had found it.
        if (storageFailure(error) !== 'corrupt') throw error;
        opened.close();
        cache = {
          state: 'corrupt',
          problem: error instanceof ProblemError ? error.problem : CORRUPT_CACHE,
          notice,
        };
        return standIn();
      }
    }
    return opened;
  }

  /**
   * An empty cache in memory in place of a damaged one, listing the user file's stores (their notes and
   * edits stay in view); a list still empty takes what the damaged file's stores table gives.
   */
  function standIn(): Db {
    const memory = openDatabase(':memory:', { userDataFile });
    adoptSalvagedStores(memory, salvageStores(null, cacheFile));
    copyStoreList(memory);
    return memory;
  }

  const keys = createKeyRing(deps.secrets, createMemorySecretStore());
  // The self-test first, then the clean-up of keys a failed add left behind: one keychain talk at a time.
  const keychain = deps.secrets.selfTest();
  // The orphans are the journal's entries at start-up, read now: an add made in this process journals
  // its key before saving it, and must not be taken for an orphan while the clean-up waits for the
  // keychain (it deleted the key just saved when a CLI add-store ran right after start).
  const orphans = cache.state === 'ok' ? orphanedKeyAccounts(db) : [];
  const keysCleaned = keychain.then(() => cleanOrphanedKeys(db, keys, orphans));
  let demo: DemoStore | null = null;
  const demoStore = () => (demo ??= createDemoStore({ clock, ...deps.demo }));

  const callMaker = deps.callThread ? threadCallMaker(deps.callThread) : inPlaceCallMaker();

  /** Everything that holds the connection: rebuilt with a new one when the cache is rebuilt. */
  const assemble = (current: Db) =>
    assembleCore(current, {
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
      cacheStatus: () => cache,
      hostFlags,
      rebuildCache,
      checkInBackground,
    });

  /** The background quick_check, once, after the window showed data; damage found is said like any other. */
  let checked = !checkLater;
  function checkInBackground(): void {
    if (checked || cache.state !== 'ok') return;
    checked = true;
    void checkIntegrityInBackground(cacheFile).then((result) => {
      if (result.ok || cache.state !== 'ok') return;
      cache = {
        state: 'corrupt',
        problem: { ...CORRUPT_CACHE, detail: `${CORRUPT_CACHE.detail} (${result.detail})` },
        notice,
      };
      emit({ name: 'stores.changed', payload: {} });
    });
  }

  let parts = assemble(db);
  assembled = parts;

  async function rebuildCache(): Promise<{ storesKept: number }> {
    if (cache.state === 'read-only') throw new ProblemError(readOnlyProblem(deps.dataDir));
    hostFlags = parts.background.flags();
    parts.background.stop();
    parts.team.close();
    assembled = null;
    parts.refresh.stop();
    await parts.engine.close();
    const salvaged = salvageStores(db.name === ':memory:' ? null : db, cacheFile);
    db.close();
    db = replaceCache(cacheFile, userDataFile, salvaged, new Date(clock()));
    cache = { state: 'ok', problem: null, notice };
    prepare(db, clock);
    parts = assemble(db);
    assembled = parts;
    emit({ name: 'stores.changed', payload: {} });
    await parts.services.sync.startAll({});
    return { storesKept: listStoreRows(db).length };
  }

  /** The user's data and the store list as one file, written while the app runs (backup/backup-file.ts). */
  async function backup(out: string): Promise<BackupInfo> {
    if (!hasUserData(db))
      throw problem(
        'readOnly',
        507,
        'Nothing to back up',
        `${userDataFile} cannot be opened here, so there is no data of yours to copy.`,
      );
    // A backup is an SQLite file: a link is followed to its file, a device or a pipe refused.
    const target = await outputTarget(resolve(out), { streams: false });
    try {
      return await writeBackup(db, target.path, {
        appVersion: deps.version,
        now: new Date(clock()),
      });
    } catch (error) {
      // SQLite says "database or disk is full" of the copy: the backup's own file is what did not fit.
      if (storageFailure(error) === 'full')
        throw new ProblemError(diskFullProblem(target.path, 'Nothing was left behind.'));
      throw error;
    }
  }

  /**
   * Replaces the folder's data with a backup's: checked first (nothing changes when it is refused), the
   * new files made and opened beside the live ones, then swapped in once no other Splitbook has the folder
   * open. The replaced files are kept in a folder of their own; any failure puts them back.
   */
  async function restore(file: string): Promise<RestoreSummary> {
    if (cache.state === 'read-only') throw new ProblemError(readOnlyProblem(deps.dataDir));
    // Everything but the digest, which the restore checks on the copy it builds and uses.
    const info = readBackup(resolve(file), 'before-copy');
    const now = new Date(clock());
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    const live = { cache: cacheFile, user: userDataFile };
    const listed = new Set(info.stores.map((store) => store.id));
    const left = listedStores(db)
      .filter((store) => !listed.has(store.id))
      .map((store) => store.name);
    const staged = await stageRestore(info, live, stamp);
    // Everything that holds the files stops, as for a rebuild; then the folder must be this core's alone.
    hostFlags = parts.background.flags();
    parts.background.stop();
    parts.team.close();
    assembled = null;
    parts.refresh.stop();
    await parts.engine.close();
    await keysCleaned;
    db.close();
    folder.release();
    let alone: FolderHold | null = null;
    const previous = join(deps.dataDir, `before-restore-${stamp}`);
    let restored = false;
    try {
      alone = takeFolderAlone(deps.dataDir);
      if (alone) {
        const step = deps.onRestoreStep;
        const swap = swapIn(
          deps.dataDir,
          staged,
          live,
          previous,
          { backup: info.file, backupCreatedAt: info.createdAt, startedAt: now.toISOString() },
          step,
        );
        let opened: Db | null = null;
        try {
          opened = openDatabase(cacheFile, { userDataFile, quickCheck: false });
          prepare(opened, clock);
        } catch (error) {
          opened?.close();
          swap.rollBack();
          throw error;
        }
        step?.('opened');
        swap.finish();
        db = opened;
        notice = null;
        cache = { state: 'ok', problem: null, notice };
        restored = true;
      }
    } finally {
      alone?.release();
      folder = holdFolder(deps.dataDir);
      if (!restored) {
        staged.discard();
        db = openCache(false);
      }
      parts = assemble(db);
      assembled = parts;
      emit({ name: 'stores.changed', payload: {} });
    }
    if (!restored)
      throw problem(
        'conflict',
        409,
        'The data folder is in use',
        `Another Splitbook (the app, the browser host or a command still running) has ${deps.dataDir} open. Close it, then restore again. Nothing was changed.`,
      );
    return { ...info, previous, storesLeft: left };
  }

  return {
    // Every call goes to the current assembly, so a rebuilt cache is used at once.
    services: delegate(() => parts.services),
    reports: {
      // Reports read the calls kept on the rows: any being made again are waited for first.
      write: async (request, out, options) => {
        await parts.refresh.idle();
        return writeExport(db, request, out, { now: clock(), ...options });
      },
      writeFile: async (request, path, options) => {
        await parts.refresh.idle();
        return writeFileAtomically(path, (out) =>
          writeExport(db, request, out, { now: clock(), ...options }),
        );
      },
      client: async (scope, format, path, options = {}) => {
        await parts.refresh.idle();
        const report = await buildClientReport(db, scope, format, clock(), {
          fetch: fetchImpl,
          detail: options.detail,
        });
        if (path !== undefined)
          await writeFileAtomically(path, async (out) => void out.end(report.content));
        return report;
      },
    },
    data: {
      backup,
      inspect: async (file) => readBackup(resolve(file)),
      restore,
    },
    background: {
      windowReady: () => parts.background.windowReady(),
      connectivity: (online) => parts.background.connectivity(online),
      wake: () => parts.background.wake(),
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watchStores(intervalMs = STORE_WATCH_MS) {
      const stop = watchStores(() => db, emit, intervalMs);
      watches.add(stop);
      return () => {
        stop();
        watches.delete(stop);
      };
    },
    async close() {
      for (const stop of watches) stop();
      watches.clear();
      unmark();
      parts.background.stop();
      parts.team.close();
      parts.refresh.stop();
      await parts.engine.close();
      await callMaker.close();
      await keysCleaned;
      listeners.clear();
      db.close();
      folder.release();
    },
  };
}

/** What a writable cache needs once opened, before any service reads it. */
function prepare(db: Db, clock: () => number): void {
  // The cache's stores are the user file's list (a lost or rebuilt cache gets them back, same ids), made
  // so before anything that hangs off a store is written. Each step reads, then writes. Begun IMMEDIATE,
  // a start beside another process's sync (the CLI while the app syncs) waits its turn on busy_timeout;
  // a deferred one failed at once with "database is locked" whenever the sync committed between its read
  // and its first write.
  db.transaction(() => copyStoreList(db)).immediate();
  // Results cached before alerts were stored on tests (cache migration 7) get theirs once, here.
  db.transaction(() => backfillAlerts(db)).immediate();
  // The outbox is the source of truth for unsent work: a crash between its write and the cache's is
  // repaired here, by applying every pending edit onto the server's copy again.
  db.transaction(() => rebaseAll(db, null, new Date(clock()).toISOString())).immediate();
}

/** A Services object whose every method calls the same method of `current()` at call time. */
function delegate(current: () => Services): Services {
  return createProxy<Services>(METHOD_NAMES, (channel, input) => {
    const method = lookup(current(), channel);
    // Services is the contract's table, which METHOD_NAMES lists (checked in shared/contract).
    if (!method) return Promise.reject(new TypeError(`The core has no service ${channel}`));
    return method(input);
  });
}
