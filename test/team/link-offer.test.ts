// The link offered: a member who adds a store whose tests the team already shares is told so, matched on test ids (never keys); two data folders (a core and the CLI under tsx), the real team server, the real keychain.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { runTsx } from '../hosts/support/spawn';
import { allTestRows, startCore, syncStore } from '../support/core';
import { type RunningServer, addMember, removeDir, startServer, tempDir } from './support';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 180_000 });

const ENTRY = 'src/main/hosts/cli/main.ts';
const root = tempDir('team-offer');
const serverDir = path.join(root, 'server');
let server: RunningServer;
let alice: Core;
let teamStoreId = '';
let firstTest = '';
const tokens: Record<string, string> = {};

async function cli(dir: string, args: string[], token?: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['SPLITBOOK_TEAM_TOKEN'];
  if (token) env['SPLITBOOK_TEAM_TOKEN'] = token;
  const run = await runTsx(ENTRY, ['--data-dir', path.join(root, dir), ...args], { env });
  if (run.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

beforeAll(async () => {
  tokens['alice'] = addMember(serverDir, 'alice', 'all');
  tokens['bob'] = addMember(serverDir, 'bob', 'all');
  // Granted nothing: must never be offered (nor receive) a store it may not open.
  tokens['dave'] = addMember(serverDir, 'dave');
  server = await startServer(serverDir);
  alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
  await alice.services.stores.openDemo({});
  await syncStore(alice, 'demo');
  const [first, second] = await allTestRows(alice, 'demo');
  firstTest = first?.id ?? '';
  await alice.services.team.join({ url: server.url, token: tokens['alice'] ?? '' });
  ({ teamStoreId } = await alice.services.team.share({ storeId: 'demo' }));
  await alice.services.team.setNote({
    storeId: 'demo',
    testId: first?.id ?? '',
    text: 'Hero copy: wait for the weekend.',
    append: false,
  });
  await alice.services.team.addComment({
    storeId: 'demo',
    testId: second?.id ?? '',
    text: 'Checked the segments.',
  });
  await alice.services.team.sync({ timeoutMs: 30_000 });
});

afterAll(async () => {
  await alice?.close();
  await server?.stop();
  removeDir(root);
});

describe('the link offered', () => {
  it('CLI: add-demo says a team store is waiting, the first sync names it, and the link takes it', async () => {
    await cli('bob', ['team', 'join', '--url', server.url], tokens['bob']);
    const added = await cli('bob', ['add-demo']);
    // Before its first sync the store has no tests to match: the hint says one is waiting, or names
    // it when the demo's background sync got there first.
    expect(added).toMatch(
      new RegExp(`The team shares 1 store not linked|--team-store ${teamStoreId}`),
    );
    const synced = await cli('bob', ['sync', '--store', 'demo']);
    expect(synced).toContain(
      `holds 2 of the 2 tests team store ${teamStoreId} (shared by alice) has notes or comments on`,
    );
    expect(synced).toContain(`"team link --store demo --team-store ${teamStoreId}"`);

    await cli('bob', ['team', 'link', '--store', 'demo', '--team-store', teamStoreId]);
    await cli('bob', ['team', 'sync']);
    const notes = JSON.parse(await cli('bob', ['notes', '--store', 'demo', '--json'])) as {
      text: string;
    }[];
    expect(notes.map((n) => n.text)).toContain('Hero copy: wait for the weekend.');
    // Linked now: nothing is offered again.
    expect(await cli('bob', ['sync', '--store', 'demo'])).not.toContain('team link');
  });

  it('CLI: sign-off --propose proposes the current call; a colleague approves that call', async () => {
    const proposed = await cli('bob', [
      'sign-off',
      '--store',
      'demo',
      '--test',
      firstTest,
      '--propose',
    ]);
    expect(proposed).toMatch(/proposed for sign-off by bob on .*; not yet approved\./);
    const json = JSON.parse(
      await cli('bob', ['sign-off', '--store', 'demo', '--test', firstTest, '--propose', '--json']),
    ) as { state: string; proposedBy: string; approvedBy: string | null; call: string };
    expect(json).toMatchObject({ state: 'proposed', proposedBy: 'bob', approvedBy: null });
    await cli('bob', ['team', 'sync']);
    await alice.services.team.sync({ timeoutMs: 30_000 });
    const approved = await alice.services.team.signOff({ storeId: 'demo', testId: firstTest });
    expect(approved).toMatchObject({
      state: 'approved',
      call: json.call,
      proposedBy: 'bob',
      approvedBy: 'alice',
    });
  });

  it('a member not granted the store is offered nothing', async () => {
    const dave = await startCore(path.join(root, 'dave'), { host: 'cli' });
    try {
      await dave.services.stores.openDemo({});
      await syncStore(dave, 'demo');
      await dave.services.team.join({ url: server.url, token: tokens['dave'] ?? '' });
      expect(await dave.services.team.linkOffers({ storeId: null })).toEqual({
        offers: [],
        unlinkedTeamStores: 0,
      });
    } finally {
      await dave.close();
    }
  });
});
