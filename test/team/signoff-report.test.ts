// Sign-offs in the reports, and the one-time copy of the layer into the user file at start: a call approved on one desktop (a core) is exported on the other (the CLI under tsx) after `cli team sync`, in the tests CSV and the client report; a solo store's export gains nothing. The project's team server on loopback, separate data folders, the real keychain, real SQLite files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import type { Core } from '#core/types';
import { USER_DATA_FILE } from '#core/create-core';
import { proposeSignOff } from '#shared/team/values';
import { SIGN_OFF_COLUMNS, TESTS_COLUMNS } from '#core/reports/tests-columns';
import { runTsx } from '../hosts/support/spawn';
import { parseCsv } from '../reports/support';
import { allTestRows, startCore, syncStore } from '../support/core';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 240_000 });

const ENTRY = 'src/main/hosts/cli/main.ts';
const root = tempDir('team-signoff');
const serverDir = path.join(root, 'server');
let server: RunningServer;
let alice: Core;
let teamStoreId = '';
const ids: string[] = [];
const calls = new Map<string, string>();
const tokens: Record<string, string> = {};
const NOTE = 'Hero copy: wait for the weekend.';

async function cli(dir: string, args: string[], token?: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['SPLITBOOK_TEAM_TOKEN'];
  if (token) env['SPLITBOOK_TEAM_TOKEN'] = token;
  const run = await runTsx(ENTRY, ['--data-dir', path.join(root, dir), ...args], { env });
  if (run.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

/** The tests report of a data folder's demo store, as CSV text and parsed. */
async function exportTests(dir: string): Promise<{ text: string; rows: Record<string, string>[] }> {
  const out = path.join(root, `${dir}-tests.csv`);
  await cli(dir, ['export', 'tests', '--store', 'demo', '--out', out]);
  const text = readFileSync(out, 'utf8');
  return { text, rows: parseCsv(text) };
}

function userFile(dir: string): Database.Database {
  return new Database(path.join(root, dir, USER_DATA_FILE));
}

beforeAll(async () => {
  tokens['alice'] = addMember(serverDir, 'alice', 'all');
  tokens['bob'] = addMember(serverDir, 'bob', 'all');
  server = await startServer(serverDir);
  alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
  await alice.services.stores.openDemo({});
  await syncStore(alice, 'demo');
  const rows = await allTestRows(alice, 'demo');
  for (const row of rows) {
    if (row.decision === null) continue;
    ids.push(row.id);
    calls.set(row.id, row.decision);
  }
  await alice.services.team.join({ url: server.url, token: tokens['alice'] ?? '' });
  ({ teamStoreId } = await alice.services.team.share({ storeId: 'demo' }));
  await alice.services.team.setNote({
    storeId: 'demo',
    testId: ids[0] ?? '',
    text: NOTE,
    append: false,
  });
  await alice.services.team.sync({ timeoutMs: 30_000 });

  // Bob: the CLI in a data folder of its own, his copy of the demo store linked to the team's.
  await cli('bob', ['team', 'join', '--url', server.url], tokens['bob']);
  await cli('bob', ['add-demo']);
  await cli('bob', ['sync', '--store', 'demo']);
  await cli('bob', ['team', 'link', '--store', 'demo', '--team-store', teamStoreId]);
  await cli('bob', ['team', 'sync']);
  // Bob proposes the first two calls; Alice approves the first, on her desktop.
  await cli('bob', ['sign-off', '--store', 'demo', '--test', ids[0] ?? '', '--propose']);
  await cli('bob', ['sign-off', '--store', 'demo', '--test', ids[1] ?? '', '--propose']);
  await cli('bob', ['team', 'sync']);
  await alice.services.team.sync({ timeoutMs: 30_000 });
  await alice.services.team.signOff({ storeId: 'demo', testId: ids[0] ?? '' });
  await alice.services.team.sync({ timeoutMs: 30_000 });
  await cli('bob', ['team', 'sync']);
});

afterAll(async () => {
  await alice?.close();
  await server?.stop();
  removeDir(root);
});

describe('sign-offs in the reports of a shared store', () => {
  it('the tests CSV exported on the other desktop says who approved, who proposed, and nothing where none', async () => {
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const { rows } = await exportTests('bob');
    expect(Object.keys(rows[0] ?? {})).toEqual(
      [...TESTS_COLUMNS, ...SIGN_OFF_COLUMNS].map((c) => c.name),
    );
    const approved = rows.find((r) => r['test_id'] === ids[0]);
    expect(approved).toMatchObject({
      sign_off: 'approved',
      sign_off_by: 'alice',
      sign_off_call: calls.get(ids[0] ?? ''),
      decision: calls.get(ids[0] ?? ''),
    });
    expect(approved?.['sign_off_at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(rows.find((r) => r['test_id'] === ids[1])).toMatchObject({
      sign_off: 'proposed',
      sign_off_by: 'bob',
      sign_off_call: calls.get(ids[1] ?? ''),
    });
    expect(rows.find((r) => r['test_id'] === ids[2])).toMatchObject({
      sign_off: '',
      sign_off_by: '',
      sign_off_at: '',
      sign_off_call: '',
    });
  });

  it('the tests sheet of the .xlsx exported there has the same sign-off columns', async () => {
    const out = path.join(root, 'bob-tests.xlsx');
    await cli('bob', ['export', 'tests', '--store', 'demo', '--format', 'xlsx', '--out', out]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(out);
    const sheet = workbook.getWorksheet('tests');
    const header = (sheet?.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual([...TESTS_COLUMNS, ...SIGN_OFF_COLUMNS].map((c) => c.name));
    const col = (name: string) => header.indexOf(name) + 1;
    const rows: ExcelJS.Row[] = [];
    sheet?.eachRow((row, n) => void (n > 1 && rows.push(row)));
    const approved = rows.find((row) => row.getCell(col('test_id')).value === ids[0]);
    expect(approved?.getCell(col('sign_off')).value).toBe('approved');
    expect(approved?.getCell(col('sign_off_by')).value).toBe('alice');
    expect(approved?.getCell(col('sign_off_call')).value).toBe(calls.get(ids[0] ?? ''));
  });

  it('the client report exported on the other desktop says "Approved by NAME on DATE", "Proposed by", "Not yet approved"', async () => {
    const out = path.join(root, 'bob-test.html');
    await cli('bob', ['report', '--store', 'demo', '--test', ids[0] ?? '', '--out', out]);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(
      /<div class="basis sign-off">Approved by alice on [^<]+ \(proposed by bob\)\.<\/div>/,
    );
    const proposed = path.join(root, 'bob-proposed.html');
    await cli('bob', ['report', '--store', 'demo', '--test', ids[1] ?? '', '--out', proposed]);
    expect(readFileSync(proposed, 'utf8')).toMatch(
      /<div class="basis sign-off">Proposed by bob on [^<]+; not yet approved\.<\/div>/,
    );
    const none = path.join(root, 'bob-none.html');
    await cli('bob', ['report', '--store', 'demo', '--test', ids[2] ?? '', '--out', none]);
    expect(readFileSync(none, 'utf8')).toContain(
      '<div class="basis sign-off">Not yet approved.</div>',
    );
    // A store's report: each card's call says it too.
    const store = path.join(root, 'bob-store.html');
    const today = new Date().toISOString().slice(0, 10);
    await cli('bob', [
      'report',
      '--store',
      'demo',
      '--since',
      '2000-01-01',
      '--until',
      today,
      '--out',
      store,
    ]);
    const cards = readFileSync(store, 'utf8');
    expect(cards).toMatch(
      /<div class="basis sign-off">Approved by alice on [^<]+ \(proposed by bob\)\.<\/div>/,
    );
    expect(cards).toMatch(
      /<div class="basis sign-off">Proposed by bob on [^<]+; not yet approved\.<\/div>/,
    );
    const summary = await cli('bob', [
      'report',
      '--store',
      'demo',
      '--test',
      ids[0] ?? '',
      '--format',
      'text',
    ]);
    expect(summary).toMatch(/Approved by alice on .+ \(proposed by bob\)\./);
  });

  it('a sign-off of another call than today’s is stale: the CSV says so and names the call, the report says not yet approved', async () => {
    // Carol signed off test 3 on a call it no longer has: her update, as the layer would hold it.
    const stale = calls.get(ids[2] ?? '') === 'paused' ? 'ship' : 'paused';
    const db = userFile('bob');
    try {
      const doc = new Y.Doc();
      const updates = db
        .prepare('SELECT data FROM team_updates WHERE team_store_id = ? ORDER BY id')
        .all(teamStoreId) as { data: Buffer }[];
      Y.applyUpdate(doc, Y.mergeUpdates(updates.map((u) => new Uint8Array(u.data))));
      const before = Y.encodeStateVector(doc);
      proposeSignOff(doc, ids[2] ?? '', stale, { by: 'carol', at: '2026-11-30T09:00:00.000Z' });
      db.prepare(
        "INSERT INTO team_updates (team_store_id, origin, data) VALUES (?, 'remote', ?)",
      ).run(teamStoreId, Buffer.from(Y.encodeStateAsUpdate(doc, before)));
    } finally {
      db.close();
    }
    const { rows } = await exportTests('bob');
    expect(rows.find((r) => r['test_id'] === ids[2])).toMatchObject({
      sign_off: 'stale',
      sign_off_by: 'carol',
      sign_off_at: '2026-11-30T09:00:00.000Z',
      sign_off_call: stale,
    });
    const out = path.join(root, 'bob-stale.html');
    await cli('bob', ['report', '--store', 'demo', '--test', ids[2] ?? '', '--out', out]);
    expect(readFileSync(out, 'utf8')).toMatch(
      /<div class="basis sign-off">Not yet approved: the sign-off \(proposed by carol on [^)]+\) was for “[^”]+”, and the call is now “[^”]+”\.<\/div>/,
    );
  });

  it('a solo store’s tests CSV and client report gain no sign-off column or line', async () => {
    await cli('carol', ['add-demo']);
    await cli('carol', ['sync', '--store', 'demo']);
    const { text, rows } = await exportTests('carol');
    expect(Object.keys(rows[0] ?? {})).toEqual(TESTS_COLUMNS.map((c) => c.name));
    expect(text).not.toContain('sign_off');
    const out = path.join(root, 'carol-test.html');
    await cli('carol', ['report', '--store', 'demo', '--test', ids[0] ?? '', '--out', out]);
    const html = readFileSync(out, 'utf8');
    expect(html).not.toContain('sign-off');
    expect(html).not.toContain('approved');
  });
});

describe('the one-time copy at start', () => {
  it('a note the user file never got (shared before the copy existed) reaches it when the CLI opens the team, once', async () => {
    // As a desktop of the last version left it: the layer holds the note, the user file does not.
    const db = userFile('bob');
    try {
      db.prepare('DELETE FROM notes WHERE store_id = ? AND test_id = ?').run('demo', ids[0]);
      db.prepare("DELETE FROM settings WHERE key = 'teamMirrored'").run();
    } finally {
      db.close();
    }
    const { rows } = await exportTests('bob');
    expect(rows.find((r) => r['test_id'] === ids[0])?.['note']).toBe(NOTE);
    const check = userFile('bob');
    try {
      const row = check.prepare("SELECT value FROM settings WHERE key = 'teamMirrored'").get() as
        { value: string } | undefined;
      expect(JSON.parse(row?.value ?? '[]')).toEqual([teamStoreId]);
    } finally {
      check.close();
    }
  });

  it('the app does the same when its core opens a joined team', async () => {
    await alice.close();
    const db = userFile('alice');
    try {
      db.prepare('DELETE FROM notes WHERE store_id = ? AND test_id = ?').run('demo', ids[0]);
      db.prepare("DELETE FROM settings WHERE key = 'teamMirrored'").run();
    } finally {
      db.close();
    }
    alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
    const search = userFile('alice');
    try {
      const row = search
        .prepare('SELECT body FROM notes WHERE store_id = ? AND test_id = ?')
        .get('demo', ids[0]) as { body: string } | undefined;
      expect(row?.body).toBe(NOTE);
    } finally {
      search.close();
    }
  });
});
