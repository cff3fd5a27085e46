// Team server benchmark: 50 shared stores × 500 tests with a note on every test, served by the real
// server process on loopback. A fresh desktop's first exchange of all 50, the server's memory once
// they are loaded, each document's size on disk, a desktop filling an empty server with the 50 (every
// update checked against the layout), and an online change seen by another desktop; then the desktop
// side: the app's own core joining the 50 (first exchange into its user file, the layer's size there,
// the one-time copy at start) and an online change between two window cores.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as Y from 'yjs';
import { createCore, DATABASE_FILE, USER_DATA_FILE } from '#core/create-core';
import { insertStore } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { createMemorySecretStore } from '#core/secrets/index';
import type { SecretStore } from '#core/secrets/index';
import type { Core } from '#core/types';
import { addComment } from '#shared/team/comments';
import { initTeamDoc } from '#shared/team/records';
import { noteOf, setNote, setTakeaway } from '#shared/team/texts';
import { setOwner, setPlan } from '#shared/team/values';
import {
  addMember as addMemberRow,
  openTeamDb,
  storeDocument,
  ensureStore,
} from '../src/team-server/db';
import { Desktop, startServer, waitFor } from '../test/team/support';
import { fmt, percentile, printFigures, withTempDir } from './support';

const STORES = 50;
const TESTS = 500;
const NOTE =
  'Hypothesis: a free-shipping banner above the fold lifts add-to-cart on mobile. Watch the SRM check; ' +
  'the control had a pricing bug in week one. Next: try the banner on the cart page too.';

function storeDoc(store: number): Y.Doc {
  const doc = new Y.Doc();
  initTeamDoc(doc);
  const at = '2026-11-02T09:00:00.000Z';
  for (let test = 0; test < TESTS; test += 1) {
    const id = `test-${store}-${test}`;
    doc.transact(() => {
      setNote(doc, id, `${NOTE} (#${test})`, { by: 'Alice', at });
      setOwner(doc, id, test % 2 === 0 ? 'Alice' : 'Bob', { by: 'Alice', at });
      if (test % 5 === 0) setPlan(doc, id, 28, { by: 'Bob', at });
      if (test % 10 === 0)
        setTakeaway(doc, id, 'Banners above the fold lift carts on mobile.', { by: 'Bob', at });
      if (test % 10 === 0)
        addComment(doc, id, 'Ready to sign off?', { by: 'Bob', at }, `c-${store}-${test}`);
    });
  }
  return doc;
}

/** Resident and peak memory of a process, from /proc (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') * 1024, peak: kib('VmHWM') * 1024 };
}

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20)} MiB`;
const names = Array.from({ length: STORES }, (_, store) => `store-${store}`);

export async function benchTeam(): Promise<void> {
  await withTempDir(async (dir) => {
    const seeded = path.join(dir, 'seeded');
    const built = performance.now();
    const docs = names.map((_, store) => storeDoc(store));
    const buildMs = performance.now() - built;
    const db = openTeamDb(seeded);
    const alice = addMemberRow(db, 'Alice', 'all', new Date().toISOString()).token;
    const bob = addMemberRow(db, 'Bob', 'all', new Date().toISOString()).token;
    const now = new Date().toISOString();
    names.forEach((name, store) => {
      ensureStore(db, name, 'Alice', now);
      storeDocument(db, name, Y.encodeStateAsUpdate(docs[store] ?? new Y.Doc()), now, false);
    });
    const sizes = db
      .prepare<[], { size: number }>('SELECT length(state) AS size FROM documents')
      .all()
      .map((row) => row.size)
      .sort((a, b) => a - b);
    db.close();

    const server = await startServer(seeded);
    const pid = server.process.pid ?? 0;
    const idle = memoryOf(pid);
    const fresh = new Desktop(server.url, alice);
    const joined = performance.now();
    fresh.connect(names);
    await fresh.waitSynced(names, 60_000);
    const firstExchangeMs = performance.now() - joined;
    const loaded = memoryOf(pid);
    const allThere = names.every((name, store) =>
      noteOf(fresh.doc(name), `test-${store}-499`).text.endsWith('(#499)'),
    );

    // An online change, seen by another desktop that has the store open.
    const other = new Desktop(server.url, bob);
    other.connect([names[0] ?? 'store-0']);
    await other.waitSynced();
    const latencies: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      const text = `Online change ${round}.`;
      const started = performance.now();
      setNote(fresh.doc(names[0] ?? 'store-0'), 'test-0-7', text, {
        by: 'Alice',
        at: new Date().toISOString(),
      });
      await waitFor(
        () => noteOf(other.doc(names[0] ?? 'store-0'), 'test-0-7').text === text,
        'the change',
        5_000,
      );
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    other.disconnect();
    fresh.disconnect();
    await server.stop();

    // A desktop filling an empty server with all 50 (a lost data folder): every update is checked.
    const empty = path.join(dir, 'empty');
    const emptyDb = openTeamDb(empty);
    const filler = addMemberRow(emptyDb, 'Alice', 'all', new Date().toISOString()).token;
    emptyDb.close();
    const refillServer = await startServer(empty);
    const refill = new Desktop(refillServer.url, filler);
    names.forEach((name, store) => refill.docs.set(name, docs[store] ?? new Y.Doc()));
    const refillStarted = performance.now();
    refill.connect();
    await refill.waitSynced(names, 120_000);
    const refillMs = performance.now() - refillStarted;
    const refillMemory = memoryOf(refillServer.process.pid ?? 0);
    refill.disconnect();
    await refillServer.stop();
    const refillDb = openTeamDb(empty);
    const refilled = Number(refillDb.prepare('SELECT count(*) FROM documents').pluck().get());
    refillDb.close();
    const desktop = await benchDesktops(dir, seeded, alice, bob);

    printFigures(`Team server (${STORES} stores × ${TESTS} tests, a note on every test)`, [
      { name: 'documents built (50, in memory)', value: `${fmt(buildMs / 1000)} s` },
      { name: 'document on disk, median', value: `${fmt(percentile(sizes, 50) / 1024)} kB` },
      {
        name: 'document on disk, largest',
        value: `${fmt((sizes.at(-1) ?? 0) / 1024)} kB`,
        goal: '< 1 MB',
      },
      {
        name: 'team.db (50 documents, WAL checkpointed)',
        value: mib(statSync(path.join(seeded, 'team.db')).size),
      },
      {
        name: 'fresh desktop: first exchange of all 50',
        value: `${fmt(firstExchangeMs / 1000, 2)} s`,
        goal: '< 10 s',
      },
      { name: 'every note arrived', value: String(allThere) },
      { name: 'server memory, idle (RSS)', value: mib(idle.rss) },
      { name: 'server memory, 50 loaded (RSS)', value: mib(loaded.rss), goal: '< 300 MiB' },
      { name: 'server memory, peak while loading', value: mib(loaded.peak), goal: '< 300 MiB' },
      {
        name: 'online change seen by another desktop, p50',
        value: `${fmt(percentile(latencies, 50))} ms`,
      },
      {
        name: 'online change seen by another desktop, max',
        value: `${fmt(latencies.at(-1) ?? NaN)} ms`,
        goal: '< 1 s',
      },
      {
        name: 'refill of an empty server with all 50',
        value: `${fmt(refillMs / 1000, 2)} s (${refilled} stored)`,
      },
      { name: 'server memory after the refill (RSS; mirrors held)', value: mib(refillMemory.rss) },
      { name: 'server memory, peak during the refill', value: mib(refillMemory.peak) },
    ]);
    printFigures(
      `Team, desktop side (the app's core: ${STORES} shared stores × ${TESTS} tests, its user file)`,
      desktop,
    );
  });
}

/** A data folder's core; its secrets survive a restart (a memory store: the keychain is not measured). */
function openCore(dataDir: string, secrets: SecretStore, host: 'cli' | 'browser'): Promise<Core> {
  return createCore({ dataDir, secrets, host, version: 'bench' });
}

/** A data folder with `count` local stores s0… in its cache (no tests: the layer is what is measured). */
async function desktopFolder(dataDir: string, secrets: SecretStore, count: number): Promise<void> {
  await (await openCore(dataDir, secrets, 'cli')).close();
  const db = openDatabase(path.join(dataDir, DATABASE_FILE), {
    userDataFile: path.join(dataDir, USER_DATA_FILE),
  });
  const at = new Date().toISOString();
  for (let i = 0; i < count; i += 1) {
    insertStore(db, {
      id: `s${i}`,
      name: `Store ${i}`,
      baseUrl: 'http://simulated',
      kind: 'api',
      keyStorage: 'none',
      createdAt: at,
    });
  }
  db.close();
}

/** The layer's bytes in a user file per team store, and how many notes were copied into it. */
function userFileFigures(dataDir: string): {
  perStore: number[];
  notes: number;
  fileBytes: number;
} {
  const file = path.join(dataDir, USER_DATA_FILE);
  const db = new Database(file, { readonly: true });
  try {
    const perStore = db
      .prepare<[], { size: number }>(
        'SELECT sum(length(data)) AS size FROM team_updates GROUP BY team_store_id',
      )
      .all()
      .map((row) => row.size)
      .sort((a, b) => a - b);
    const notes = Number(db.prepare('SELECT count(*) FROM notes').pluck().get());
    return { perStore, notes, fileBytes: statSync(file).size };
  } finally {
    db.close();
  }
}

async function benchDesktops(
  dir: string,
  serverDir: string,
  aliceToken: string,
  bobToken: string,
): Promise<{ name: string; value: string; goal?: string }[]> {
  const server = await startServer(serverDir);
  const pid = server.process.pid ?? 0;
  try {
    // Alice's desktop joins the team and links her 50 stores: `cli team sync`'s first exchange.
    const aliceDir = path.join(dir, 'desktop-alice');
    const aliceSecrets = createMemorySecretStore();
    await desktopFolder(aliceDir, aliceSecrets, STORES);
    const emptyBytes = statSync(path.join(aliceDir, USER_DATA_FILE)).size;
    let core = await openCore(aliceDir, aliceSecrets, 'cli');
    await core.services.team.join({ url: server.url, token: aliceToken });
    for (let i = 0; i < STORES; i += 1) {
      await core.services.team.link({ storeId: `s${i}`, teamStoreId: names[i] ?? '' });
    }
    const syncStarted = performance.now();
    await core.services.team.sync({ timeoutMs: 120_000 });
    const firstExchangeMs = performance.now() - syncStarted;
    const serverAfterJoin = memoryOf(pid);
    await core.close();
    const after = userFileFigures(aliceDir);

    // The next start of the CLI (the copy was made as the updates came): nothing to copy.
    let opened = performance.now();
    core = await openCore(aliceDir, aliceSecrets, 'cli');
    const openMs = performance.now() - opened;
    await core.close();
    // A user file of the version before the copy: its notes and the copy's mark gone, the layer kept.
    const db = new Database(path.join(aliceDir, USER_DATA_FILE));
    db.prepare('DELETE FROM notes').run();
    db.prepare("DELETE FROM settings WHERE key = 'teamMirrored'").run();
    db.close();
    opened = performance.now();
    core = await openCore(aliceDir, aliceSecrets, 'cli');
    const mirrorOpenMs = performance.now() - opened;
    await core.close();
    const mirrored = userFileFigures(aliceDir).notes;

    // Two window cores (they stay connected): Bob's note on store-0 shown in Alice's open store.
    const bobDir = path.join(dir, 'desktop-bob');
    const bobSecrets = createMemorySecretStore();
    await desktopFolder(bobDir, bobSecrets, 1);
    const aliceWindow = await openCore(aliceDir, aliceSecrets, 'browser');
    const bobWindow = await openCore(bobDir, bobSecrets, 'browser');
    const latencies: number[] = [];
    try {
      await bobWindow.services.team.join({ url: server.url, token: bobToken });
      await bobWindow.services.team.link({ storeId: 's0', teamStoreId: names[0] ?? '' });
      await bobWindow.services.team.sync({ timeoutMs: 60_000 });
      const shown = async (text: string) =>
        (await aliceWindow.services.notes.get({ storeId: 's0', testId: 'test-0-9' })).body === text;
      // Both windows connected (status says so) before the first round.
      const connected = async (core: Core) => (await core.services.team.status({})).connected;
      const started = performance.now();
      while (!((await connected(aliceWindow)) && (await connected(bobWindow)))) {
        if (performance.now() - started > 60_000) throw new Error('the windows did not connect');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (let round = 0; round < 20; round += 1) {
        const text = `Desktop change ${round}.`;
        const t = performance.now();
        await bobWindow.services.team.setNote({
          storeId: 's0',
          testId: 'test-0-9',
          text,
          append: false,
        });
        while (!(await shown(text))) {
          if (performance.now() - t > 5_000) throw new Error('the change never arrived');
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        latencies.push(performance.now() - t);
      }
    } finally {
      await bobWindow.close();
      await aliceWindow.close();
    }
    latencies.sort((a, b) => a - b);
    const largest = after.perStore.at(-1) ?? 0;
    return [
      {
        name: "first exchange of all 50 into the desktop's user file (team.sync)",
        value: `${fmt(firstExchangeMs / 1000, 2)} s`,
        goal: '< 10 s',
      },
      {
        name: 'server memory after that exchange (RSS)',
        value: mib(serverAfterJoin.rss),
        goal: '< 300 MiB',
      },
      { name: 'server memory, peak so far', value: mib(serverAfterJoin.peak), goal: '< 300 MiB' },
      {
        name: 'layer in the user file per store, median',
        value: `${fmt(percentile(after.perStore, 50) / 1024)} kB (${after.perStore.length} stores)`,
      },
      {
        name: 'layer in the user file per store, largest',
        value: `${fmt(largest / 1024)} kB`,
        goal: '< 1 MB',
      },
      {
        name: 'user file growth per store (layer + its notes copied)',
        value: `${fmt((after.fileBytes - emptyBytes) / STORES / 1024)} kB`,
        goal: '< 1 MB',
      },
      { name: 'notes copied into the user file', value: String(after.notes) },
      { name: 'next start of the CLI core (nothing to copy)', value: `${fmt(openMs)} ms` },
      {
        name: 'first start after the upgrade (one-time copy of all 50)',
        value: `${fmt(mirrorOpenMs / 1000, 2)} s (${mirrored} notes copied)`,
      },
      {
        name: 'online change shown in the other window, p50',
        value: `${fmt(percentile(latencies, 50))} ms`,
      },
      {
        name: 'online change shown in the other window, max',
        value: `${fmt(latencies.at(-1) ?? NaN)} ms`,
        goal: '< 1 s',
      },
    ];
  } finally {
    await server.stop();
  }
}
