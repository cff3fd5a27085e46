// A store unshared on one desktop (`team unlink`): its notes and the rest stay there as local data, the team's copy and the colleague's are untouched, and nothing more passes either way. Two window cores, the project's team server on loopback, the tokens in the test keychain.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '#core/types';
import { checkTeamArgs } from '../../src/main/hosts/cli/team-commands';
import { startCore } from '../support/core';
import { type RunningServer, addMember, removeDir, startServer, tempDir, until } from './support';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const root = tempDir('team-unlink');
const serverDir = path.join(root, 'server');
let server: RunningServer;
let alice: Core;
let bob: Core;

const noteOf = async (core: Core, testId: string) =>
  (await core.services.notes.get({ storeId: 'demo', testId })).body;

beforeAll(async () => {
  const tokens = {
    alice: addMember(serverDir, 'alice', 'all'),
    bob: addMember(serverDir, 'bob', 'all'),
  };
  server = await startServer(serverDir, []);
  alice = await startCore(path.join(root, 'alice'), { host: 'browser' });
  bob = await startCore(path.join(root, 'bob'), { host: 'browser' });
  for (const core of [alice, bob]) await core.services.stores.openDemo({});
  await alice.services.team.join({ url: server.url, token: tokens.alice });
  await bob.services.team.join({ url: server.url, token: tokens.bob });
  await alice.services.notes.set({ storeId: 'demo', testId: 't1', body: 'Shared by alice.' });
  const { teamStoreId } = await alice.services.team.share({ storeId: 'demo' });
  await alice.services.team.setOwner({ storeId: 'demo', testId: 't1', owner: 'bob' });
  await alice.services.team.sync({ timeoutMs: 20_000 });
  await bob.services.team.link({ storeId: 'demo', teamStoreId });
  await bob.services.team.sync({ timeoutMs: 20_000 });
  await until(
    async () => (await noteOf(bob, 't1')) === 'Shared by alice.',
    "alice's note on bob's",
  );
});

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await server?.stop();
  removeDir(root);
});

describe('a store unshared on one desktop', () => {
  it("keeps the store's note there as local data, and the team's copy and the colleague's as they were", async () => {
    expect((await bob.services.team.owners({ storeId: 'demo' })).map((o) => o.owner)).toEqual([
      'bob',
    ]);
    const { teamStoreId } = await bob.services.team.unlink({ storeId: 'demo' });
    expect(teamStoreId).toMatch(/\S/);

    const status = await bob.services.team.status({});
    expect(status.joined).toBe(true);
    expect(status.stores).toEqual([]);
    // The note stays, now the desktop's own; the owners were the team's.
    expect(await noteOf(bob, 't1')).toBe('Shared by alice.');
    expect(await bob.services.team.owners({ storeId: 'demo' })).toEqual([]);
    await expect(bob.services.team.comments({ storeId: 'demo', testId: null })).rejects.toThrow(
      /not shared/i,
    );

    // Bob's edit stays on his desktop; alice's later one stays on the team's.
    await bob.services.notes.set({ storeId: 'demo', testId: 't1', body: 'Bob, on his own.' });
    await alice.services.notes.set({ storeId: 'demo', testId: 't1', body: 'Alice, later.' });
    await alice.services.team.sync({ timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await noteOf(bob, 't1')).toBe('Bob, on his own.');
    expect(await noteOf(alice, 't1')).toBe('Alice, later.');
    expect((await alice.services.team.status({})).stores.map((s) => s.storeId)).toEqual(['demo']);

    // Unsharing it again says it is not shared.
    await expect(bob.services.team.unlink({ storeId: 'demo' })).rejects.toThrow(/not shared/i);
  });

  it('needs --store on the command line', () => {
    expect(checkTeamArgs(['unlink'], {})).toBe('team unlink needs --store ID.');
    expect(checkTeamArgs(['unlink'], { store: 'demo' })).toBeNull();
  });
});
