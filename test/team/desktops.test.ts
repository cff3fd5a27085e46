// Desktops on a team, as users run them: the project's team server on loopback, three or four data folders driven by the CLI (`npm run cli` under tsx), tokens in the real OS keychain.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runTsx, type Finished } from '../hosts/support/spawn';
import { type RunningServer, addMember, removeDir, startServer, teamCli, tempDir } from './support';

// Every step is a CLI process under tsx on a busy two-core machine.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const ENTRY = 'src/main/hosts/cli/main.ts';
const realKeyring = process.env['SPLITBOOK_TEST_KEYRING'] === '1';
const root = tempDir('team-desktops');
const serverDir = path.join(root, 'server');

type Note = { testId: string; text: string; updatedAt: string | null; authors: { name: string }[] };
type Comment = {
  id: string;
  text: string | null;
  deleted: { by: string } | null;
  editOverridden: boolean;
};

/** One desktop: its own data folder (and so its own user file and its own keychain account). */
class Desk {
  readonly dir: string;
  constructor(name: string) {
    this.dir = path.join(root, name);
  }

  run(
    args: string[],
    options: { stdin?: string; env?: NodeJS.ProcessEnv } = {},
  ): Promise<Finished> {
    const env = { ...process.env, ...options.env };
    if (!options.env?.['SPLITBOOK_TEAM_TOKEN']) delete env['SPLITBOOK_TEAM_TOKEN'];
    return runTsx(ENTRY, ['--data-dir', this.dir, ...args], { env, stdin: options.stdin });
  }

  async ok(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
    const run = await this.run(args, options);
    if (run.code !== 0) {
      throw new Error(`cli ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
    }
    return run.stdout;
  }

  async json<T>(args: string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, '--json'])) as T;
  }

  notes = () => this.json<Note[]>(['notes', '--store', 'demo']);
  note = async (testId: string) => (await this.notes()).find((n) => n.testId === testId);
  sync = () => this.ok(['team', 'sync']);
}

let server: RunningServer;
let port = 0;
const tokens: Record<string, string> = {};
const alice = new Desk('alice');
const alice2 = new Desk('alice-laptop');
const bob = new Desk('bob');
const carol = new Desk('carol');
let teamStoreId = '';

async function serve(): Promise<void> {
  server = await startServer(serverDir, port === 0 ? [] : ['--port', String(port)]);
  port = Number(new URL(server.url).port);
}

beforeAll(async () => {
  if (!realKeyring) return;
  tokens['alice'] = addMember(serverDir, 'alice', 'all');
  tokens['bob'] = addMember(serverDir, 'bob', 'all');
  tokens['carol'] = addMember(serverDir, 'carol');
  await serve();
  // Each desktop has the demo store (its tests' ids are the simulator's, the same on every desktop).
  await Promise.all([alice, alice2, bob, carol].map((desk) => desk.ok(['add-demo'])));
});

afterAll(async () => {
  await server?.stop();
  removeDir(root);
});

describe('desktops on a team (CLI, real server, real keychain)', () => {
  it('joins with the token on stdin or in the environment, never in argv, and refuses plain ws:// to another machine', async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    const argv = await alice.run(['team', 'join', '--url', server.url, '--token', 'x']);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain('Never pass a team token on the command line');

    const plain = await alice.run(['team', 'join', '--url', 'ws://team.example.com:4747'], {
      stdin: tokens['alice'],
    });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('Plain ws:// would send the team token');

    const wrong = await alice.run(['team', 'join', '--url', server.url], { stdin: 'sbt_wrong' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/refused this token/);
    expect(JSON.parse(await alice.ok(['team', 'status', '--json'])).joined).toBe(false);

    expect(
      await alice.ok(['team', 'join', '--url', server.url], { stdin: `${tokens['alice']}\n` }),
    ).toContain('as alice');
    await alice2.ok(['team', 'join', '--url', server.url], {
      env: { SPLITBOOK_TEAM_TOKEN: tokens['alice'] ?? '' },
    });
    await bob.ok(['team', 'join', '--url', server.url], {
      env: { SPLITBOOK_TEAM_TOKEN: tokens['bob'] ?? '' },
    });
    await carol.ok(['team', 'join', '--url', server.url], { stdin: tokens['carol'] });
    const status = await bob.json<{ joined: boolean; member: string; url: string }>([
      'team',
      'status',
    ]);
    expect(status).toMatchObject({ joined: true, member: 'bob', url: server.url });

    // The token is in the keychain, not in any file of the data folder.
    for (const desk of [alice, bob, carol]) {
      for (const file of readdirSync(desk.dir, { recursive: true, encoding: 'utf8' })) {
        const full = path.join(desk.dir, file);
        if (!statSync(full).isFile()) continue;
        const bytes = readFileSync(full).toString('latin1');
        for (const token of Object.values(tokens)) expect(bytes).not.toContain(token);
      }
    }
  });

  it('shares a store, links it on other desktops, and a note reaches them', async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    // A note written before the store was shared becomes the team's.
    await alice.ok(['note', '--store', 'demo', '--test', 't1', '--set', 'Before sharing.']);
    teamStoreId = (await alice.json<{ teamStoreId: string }>(['team', 'share', '--store', 'demo']))
      .teamStoreId;
    expect(teamStoreId).toMatch(/^[A-Za-z0-9._~-]+$/);
    for (const desk of [alice2, bob, carol]) {
      await desk.ok(['team', 'link', '--store', 'demo', '--team-store', teamStoreId]);
    }
    await alice.ok(['note', '--store', 'demo', '--test', 't1', '--append', 'Alice: lift holds.']);
    await alice.sync();
    await bob.sync();
    await alice2.sync();
    const note = await bob.note('t1');
    expect(note?.text).toBe('Before sharing.\nAlice: lift holds.');
    expect(note?.authors.map((a) => a.name)).toEqual(['alice']);
    expect((await alice2.note('t1'))?.text).toBe(note?.text);
  });

  it('a member without a grant is refused and never receives the document', async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    const refused = await carol.run(['team', 'sync']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The team server refused');
    expect(refused.stderr).toContain('not granted');
    expect(await carol.notes()).toEqual([]);
    // Nothing of the server's is in carol's user file: no update that came from it.
    const db = new Database(path.join(carol.dir, 'splitbook-user.db'), { readonly: true });
    try {
      const remote = db
        .prepare(`SELECT count(*) AS n FROM team_updates WHERE origin != 'local'`)
        .get() as { n: number };
      expect(remote.n).toBe(0);
    } finally {
      db.close();
    }
    // Granted, the third desktop gets it.
    teamCli(serverDir, 'grant', '--name', 'carol', '--store', teamStoreId);
    await carol.sync();
    expect((await carol.note('t1'))?.text).toBe('Before sharing.\nAlice: lift holds.');
  });

  it('offline edits on two desktops with the server stopped converge after its restart: both texts, the same on both', async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    await server.stop();
    await alice.ok(['note', '--store', 'demo', '--test', 't1', '--append', 'Alice offline.']);
    await bob.ok(['note', '--store', 'demo', '--test', 't1', '--append', 'Bob offline.']);
    await bob.ok(['note', '--store', 'demo', '--test', 't2', '--set', 'Bob on t2.']);
    const unreachable = await alice.run(['team', 'sync']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot be reached');
    const waiting = await alice.json<{ stores: { waiting: number }[] }>(['team', 'status']);
    expect(waiting.stores[0]?.waiting).toBeGreaterThan(0);

    await serve();
    await alice.sync();
    await bob.sync();
    await alice.sync();
    const [a, b] = [await alice.note('t1'), await bob.note('t1')];
    expect(a?.text).toBe(b?.text);
    expect(a?.text).toContain('Alice offline.');
    expect(a?.text).toContain('Bob offline.');
    expect(a?.text.startsWith('Before sharing.\nAlice: lift holds.\n')).toBe(true);
    expect(a?.authors.map((x) => x.name).sort()).toEqual(['alice', 'bob']);
    expect((await alice.note('t2'))?.text).toBe('Bob on t2.');
    const after = await alice.json<{ stores: { waiting: number }[] }>(['team', 'status']);
    expect(after.stores[0]?.waiting).toBe(0);
  });

  it('an owner takes the last writer; a comment deleted on one desktop while edited on another ends deleted', async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    // Two writes made without seeing each other: the later one wins on every desktop.
    await alice.ok(['owner', '--store', 'demo', '--test', 't3', '--set', 'alice']);
    await bob.ok(['owner', '--store', 'demo', '--test', 't3', '--set', 'bob']);
    await bob.sync();
    await alice.sync();
    for (const desk of [alice, bob]) {
      const owner = await desk.json<{ owner: string; by: string }>([
        'owner',
        '--store',
        'demo',
        '--test',
        't3',
      ]);
      expect(owner).toMatchObject({ owner: 'bob', by: 'bob' });
    }

    const posted = await alice.json<Comment>([
      'comment',
      '--store',
      'demo',
      '--test',
      't3',
      '--text',
      'Ship it?',
    ]);
    await alice.sync();
    await alice2.sync();
    // Alice edits on one laptop while she deletes it on the other, both offline of each other.
    await alice.ok([
      'comment',
      '--store',
      'demo',
      '--test',
      't3',
      '--edit',
      posted.id,
      '--text',
      'Ship it!',
    ]);
    await alice2.ok(['comment', '--store', 'demo', '--test', 't3', '--delete', posted.id]);
    // Only its author may change a comment.
    const foreign = await bob.run([
      'comment',
      '--store',
      'demo',
      '--test',
      't3',
      '--delete',
      posted.id,
    ]);
    expect(foreign.code).toBe(1);
    await alice2.sync();
    await alice.sync();
    await alice2.sync();
    await bob.sync();
    for (const desk of [alice, alice2, bob]) {
      const comments = await desk.json<Comment[]>(['comments', '--store', 'demo', '--test', 't3']);
      expect(comments).toHaveLength(1);
      expect(comments[0]).toMatchObject({
        id: posted.id,
        text: null,
        deleted: { by: 'alice' },
        editOverridden: true,
      });
    }
    expect(await bob.ok(['comments', '--store', 'demo'])).toContain(
      'an edit made meanwhile was overridden',
    );
  });

  it('a revoked member is refused, and keeps their own copy', async (ctx) => {
    if (!realKeyring) ctx.skip('no OS keychain here (run under scripts/with-keyring.mjs)');
    teamCli(serverDir, 'member', 'remove', '--name', 'bob');
    const refused = await bob.run(['team', 'sync']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The team server refused');
    expect((await bob.note('t1'))?.text).toContain('Bob offline.');
    // Leaving forgets the token; the copy stays.
    await bob.ok(['team', 'leave']);
    expect((await bob.json<{ joined: boolean }>(['team', 'status'])).joined).toBe(false);
    expect((await bob.note('t2'))?.text).toBe('Bob on t2.');
  });
});

describe('a store not shared', () => {
  it('keeps its notes where they were: note and notes without a team', async () => {
    const solo = new Desk('solo');
    await solo.ok(['add-demo']);
    await solo.ok(['note', '--store', 'demo', '--test', 't1', '--set', 'Mine only.']);
    await solo.ok(['note', '--store', 'demo', '--test', 't1', '--append', 'Second line.']);
    const notes = await solo.notes();
    expect(notes).toEqual([
      expect.objectContaining({ testId: 't1', text: 'Mine only.\nSecond line.', authors: [] }),
    ]);
    const shared = await solo.run(['comment', '--store', 'demo', '--test', 't1', '--text', 'x']);
    expect(shared.code).toBe(1);
    expect(shared.stderr).toContain('not shared with a team');
    const sync = await solo.run(['team', 'sync']);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain('No team joined');
  });
});
