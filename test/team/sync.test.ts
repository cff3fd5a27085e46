// Desktops and the team server over time: offline edits merged after a restart, a restart that loses nothing, a lost data folder refilled from a desktop, two instances behind one redis-server.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTeamDoc } from '#shared/team/check';
import { addComment, commentsOf } from '#shared/team/comments';
import { initTeamDoc } from '#shared/team/records';
import { appendNote, noteOf, setNote } from '#shared/team/texts';
import { ownerOf, setOwner } from '#shared/team/values';
import {
  Desktop,
  type RunningServer,
  addMember,
  removeDir,
  startRedis,
  startServer,
  tempDir,
  waitFor,
} from './support';

// Child processes (the server, its member commands under tsx) start slowly on a busy two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const STORE = 'team-store-1';
const TEST = 'test-1';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function folder(prefix: string): string {
  const dir = tempDir(prefix);
  cleanups.push(() => removeDir(dir));
  return dir;
}

async function serve(dir: string, args: string[] = []): Promise<RunningServer> {
  const server = await startServer(dir, args);
  cleanups.push(() => server.stop().then(() => undefined));
  return server;
}

function desktop(server: RunningServer, token: string, stores: string[] = [STORE]): Desktop {
  const one = new Desktop(server.url, token);
  one.connect(stores);
  cleanups.push(() => one.disconnect());
  return one;
}

const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

describe('offline first', () => {
  it('two desktops edit offline while the server is down; after its restart both texts are on both, identical', async () => {
    const dir = folder('offline');
    const aliceToken = addMember(dir, 'Alice', 'all');
    const bobToken = addMember(dir, 'Bob', 'all');
    const first = await serve(dir);
    const alice = desktop(first, aliceToken);
    const bob = desktop(first, bobToken);
    await alice.waitSynced();
    initTeamDoc(alice.doc(STORE));
    setNote(alice.doc(STORE), TEST, 'Hypothesis: free shipping.', { by: 'Alice', at: at(0) });
    await waitFor(() => noteOf(bob.doc(STORE), TEST).text !== '', 'the first note to reach Bob');

    expect(await first.stop()).toBe(0);
    setNote(alice.doc(STORE), TEST, 'Alice offline. Hypothesis: free shipping.', {
      by: 'Alice',
      at: at(1),
    });
    appendNote(bob.doc(STORE), TEST, 'Bob offline: carts up.', { by: 'Bob', at: at(2) });
    setOwner(bob.doc(STORE), TEST, 'Bob', { by: 'Bob', at: at(3) });

    const second = await serve(dir);
    alice.connect([], second.url);
    bob.connect([], second.url);
    await alice.waitSynced();
    await bob.waitSynced();
    const expected = 'Alice offline. Hypothesis: free shipping.\nBob offline: carts up.';
    await waitFor(
      () =>
        noteOf(alice.doc(STORE), TEST).text === expected &&
        noteOf(bob.doc(STORE), TEST).text === expected,
      'both texts on both desktops',
    );
    expect(ownerOf(alice.doc(STORE), TEST)).toEqual({ value: 'Bob', by: 'Bob', at: at(3) });
    expect(noteOf(alice.doc(STORE), TEST).authors.map((author) => author.name)).toEqual([
      'Bob',
      'Alice',
    ]);
  });

  it('a server restart loses nothing: a fresh desktop gets every record from the restarted server', async () => {
    const dir = folder('restart');
    const aliceToken = addMember(dir, 'Alice', 'all');
    const carolToken = addMember(dir, 'Carol', STORE);
    const first = await serve(dir);
    const alice = desktop(first, aliceToken);
    await alice.waitSynced();
    const doc = alice.doc(STORE);
    initTeamDoc(doc);
    setNote(doc, TEST, 'Kept across restarts.', { by: 'Alice', at: at(0) });
    addComment(doc, TEST, 'A comment too.', { by: 'Alice', at: at(1) });
    setOwner(doc, TEST, 'Alice', { by: 'Alice', at: at(2) });
    await alice.waitSynced();
    alice.disconnect();
    expect(await first.stop()).toBe(0);

    const second = await serve(dir);
    const carol = desktop(second, carolToken);
    await carol.waitSynced();
    const copy = carol.doc(STORE);
    expect(noteOf(copy, TEST).text).toBe('Kept across restarts.');
    expect(commentsOf(copy, TEST).map((comment) => comment.text)).toEqual(['A comment too.']);
    expect(ownerOf(copy, TEST)?.value).toBe('Alice');
    expect(checkTeamDoc(copy)).toEqual([]);
  });

  it('a server whose data folder is lost is refilled from a desktop copy', async () => {
    const dir = folder('lost');
    const aliceToken = addMember(dir, 'Alice', 'all');
    const first = await serve(dir);
    const alice = desktop(first, aliceToken);
    await alice.waitSynced();
    initTeamDoc(alice.doc(STORE));
    setNote(alice.doc(STORE), TEST, 'Only the desktops still have this.', {
      by: 'Alice',
      at: at(0),
    });
    await alice.waitSynced();
    await first.stop();
    rmSync(dir, { recursive: true, force: true });

    // The members are lost with the folder: they are added again (new tokens), Alice with `all`.
    const newAlice = addMember(dir, 'Alice', 'all');
    const dave = addMember(dir, 'Dave', 'all');
    const second = await serve(dir);
    const refill = new Desktop(second.url, newAlice);
    for (const [name, doc] of alice.docs) refill.docs.set(name, doc); // the same desktop, joined again
    refill.connect();
    cleanups.push(() => refill.disconnect());
    await refill.waitSynced();
    const fresh = desktop(second, dave);
    await fresh.waitSynced();
    await waitFor(
      () => noteOf(fresh.doc(STORE), TEST).text === 'Only the desktops still have this.',
      'the refilled note on a fresh desktop',
    );
  });
});

describe('scale-out', () => {
  it('two instances behind one redis-server: a change through one is seen through the other', async (ctx) => {
    try {
      execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    } catch {
      ctx.skip('redis-server is not installed (apt-get install redis-server; .ci/run does)');
    }
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const dir = folder('redis');
    const aliceToken = addMember(dir, 'Alice', 'all');
    const bobToken = addMember(dir, 'Bob', 'all');
    const one = await serve(dir, ['--redis', redis.url]);
    const two = await serve(dir, ['--redis', redis.url]);
    expect(one.url).not.toBe(two.url);
    const alice = desktop(one, aliceToken);
    const bob = desktop(two, bobToken);
    await alice.waitSynced();
    await bob.waitSynced();
    setNote(alice.doc(STORE), TEST, 'Through instance one.', { by: 'Alice', at: at(0) });
    await waitFor(
      () => noteOf(bob.doc(STORE), TEST).text === 'Through instance one.',
      'the note via redis',
    );
    addComment(bob.doc(STORE), TEST, 'Seen through instance two.', { by: 'Bob', at: at(1) });
    await waitFor(() => commentsOf(alice.doc(STORE), TEST).length === 1, 'the comment via redis');

    // What either instance stored holds both changes: a fresh desktop on a lone instance gets both.
    alice.disconnect();
    bob.disconnect();
    await one.stop();
    await two.stop();
    const alone = await serve(dir);
    const carol = desktop(alone, aliceToken);
    await carol.waitSynced();
    expect(noteOf(carol.doc(STORE), TEST).text).toBe('Through instance one.');
    expect(commentsOf(carol.doc(STORE), TEST).map((comment) => comment.author)).toEqual(['Bob']);
  });
});
