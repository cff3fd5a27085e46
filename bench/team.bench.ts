// Team server benchmark: 50 shared stores × 500 tests with a note on every test, served by the real
// server process on loopback. A fresh desktop's first exchange of all 50, the server's memory once
// they are loaded, each document's size on disk, a desktop filling an empty server with the 50 (every
// update checked against the layout), and an online change seen by another desktop.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import * as Y from 'yjs';
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
  });
}
