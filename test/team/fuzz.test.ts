// Malformed, incomplete, off-layout and oversized updates thrown at the team server: each is refused, the document stays readable and unchanged; a flood is cut off.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { checkTeamDoc } from '#shared/team/check';
import { TESTS_ROOT, noteRoot } from '#shared/team/layout';
import { addComment, commentsOf } from '#shared/team/comments';
import { initTeamDoc } from '#shared/team/records';
import { noteOf, setNote } from '#shared/team/texts';
import {
  Desktop,
  type RunningServer,
  addMember,
  removeDir,
  startServer,
  tempDir,
  waitFor,
} from './support';
import {
  AUTH_AUTHENTICATED,
  type RawClient,
  authFrame,
  queryAwarenessFrame,
  rawClient,
  updateFrame,
} from './wire';

// Child processes (the server, its member commands under tsx) start slowly on a busy two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const STORE = 'fuzzed-store';
const TEST = 'test-1';
const CLOSE = 7;
const SYNC_STATUS = 8;
const STATELESS = 5;

let dir: string;
let server: RunningServer;
let token: string;
let writer: Desktop;
/** What the server held before the fuzz: a fresh desktop's copy must match it after. */
let before: { note: string; comments: string[]; stateVector: string };

async function freshCopy(): Promise<Y.Doc> {
  const reader = new Desktop(server.url, token);
  reader.connect([STORE]);
  try {
    await reader.waitSynced();
    const copy = new Y.Doc();
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(reader.doc(STORE)));
    return copy;
  } finally {
    reader.disconnect();
  }
}

function summary(doc: Y.Doc) {
  return {
    note: noteOf(doc, TEST).text,
    comments: commentsOf(doc, TEST).map((comment) => comment.text ?? ''),
    stateVector: Buffer.from(Y.encodeStateVector(doc)).toString('hex'),
  };
}

beforeAll(async () => {
  dir = tempDir('fuzz');
  token = addMember(dir, 'Alice', 'all');
  server = await startServer(dir);
  writer = new Desktop(server.url, token);
  writer.connect([STORE]);
  await writer.waitSynced();
  const doc = writer.doc(STORE);
  initTeamDoc(doc);
  setNote(doc, TEST, 'The note the fuzz must not touch.', {
    by: 'Alice',
    at: '2026-03-01T10:00:00.000Z',
  });
  addComment(doc, TEST, 'And this comment.', { by: 'Alice', at: '2026-03-01T10:01:00.000Z' });
  await writer.waitSynced();
  writer.disconnect();
  before = summary(await freshCopy());
});

afterAll(async () => {
  await server?.stop();
  removeDir(dir);
});

/** An authenticated raw connection to the store, ready for one update. */
async function authed(): Promise<RawClient> {
  const raw = await rawClient(server.url);
  raw.send(authFrame(STORE, token));
  await waitFor(
    () =>
      raw.frames.some(
        (frame) => frame.doc === STORE && frame.type === 2 && frame.body[0] === AUTH_AUTHENTICATED,
      ),
    'authentication',
  );
  return raw;
}

/**
 * Sends one frame and waits for the server's answer: an acknowledgement, a close of the document or
 * of the socket. A frame that is not even addressed to the store (`addressed` false) may get none:
 * the server holds it for a document the connection has not authenticated, so it waits a moment.
 */
async function answerTo(
  frame: Uint8Array,
  addressed = true,
): Promise<{ accepted: boolean; stateless: string; closed: boolean }> {
  const raw = await authed();
  const seen = raw.frames.length;
  let socketClosed = false;
  void raw.closed.then(() => (socketClosed = true));
  raw.send(frame);
  const answered = () =>
    socketClosed || raw.frames.slice(seen).some((f) => f.type === CLOSE || f.type === SYNC_STATUS);
  if (addressed) await waitFor(answered, 'an answer', 5_000);
  else await new Promise((resolve) => setTimeout(resolve, 50));
  const later = raw.frames.slice(seen);
  const stateless = later
    .filter((f) => f.type === STATELESS)
    .map((f) => new TextDecoder().decode(f.body))
    .join(' ');
  raw.close();
  return {
    accepted: later.some((f) => f.type === SYNC_STATUS && f.body[0] === 1),
    stateless,
    closed: socketClosed,
  };
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** An update made by a doc that starts from the server's state, then `change` applied. */
async function updateFrom(change: (doc: Y.Doc) => void): Promise<Uint8Array> {
  const doc = await freshCopy();
  const vector = Y.encodeStateVector(doc);
  change(doc);
  return Y.encodeStateAsUpdate(doc, vector);
}

describe('the update guard', () => {
  it('refuses random bytes as updates and as whole frames, and the document stays as it was', async () => {
    const next = random(47);
    for (let round = 0; round < 60; round += 1) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(next() * 600) }, () =>
        Math.floor(next() * 256),
      );
      const whole = round % 3 === 2;
      const answer = await answerTo(whole ? bytes : updateFrame(STORE, bytes), !whole);
      expect(answer.accepted, `round ${round}`).toBe(false);
    }
    const after = await freshCopy();
    expect(summary(after)).toEqual(before);
    expect(checkTeamDoc(after)).toEqual([]);
  });

  it('refuses a real update cut short or with flipped bytes', async () => {
    const update = await updateFrom((doc) =>
      setNote(doc, TEST, 'A change that never lands.', {
        by: 'Alice',
        at: '2026-03-01T11:00:00.000Z',
      }),
    );
    const next = random(7);
    for (let round = 0; round < 30; round += 1) {
      const broken = Uint8Array.from(update);
      if (round % 2 === 0) {
        const cut = broken.subarray(0, 1 + Math.floor(next() * (broken.length - 2)));
        expect((await answerTo(updateFrame(STORE, cut))).accepted, `cut ${round}`).toBe(false);
        continue;
      }
      for (let flips = 0; flips < 3; flips += 1) {
        const at = Math.floor(next() * broken.length);
        broken[at] = (broken[at] ?? 0) ^ (1 + Math.floor(next() * 255));
      }
      await answerTo(updateFrame(STORE, broken)); // a flip may still read as some update: the check below decides
    }
    const after = await freshCopy();
    expect(noteOf(after, TEST).text).toBe(before.note);
    expect(checkTeamDoc(after)).toEqual([]);
  });

  it.each([
    [
      'a root the layout lacks',
      (doc: Y.Doc) => doc.getMap('secrets').set('apiKey', 'sk_live_x'),
      'not-in-layout',
    ],
    [
      'formatting in a note',
      (doc: Y.Doc) => doc.getText(noteRoot(TEST)).insert(0, 'bold', { bold: true }),
      'not-in-layout',
    ],
    [
      'a nested type in a record map',
      (doc: Y.Doc) => doc.getMap(TESTS_ROOT).set(`${TEST}/owner/Alice`, new Y.Map()),
      'not-in-layout',
    ],
    [
      "a record in another member's name",
      (doc: Y.Doc) =>
        doc.getMap(TESTS_ROOT).set(`${TEST}/owner/Bob`, {
          value: 'Alice',
          by: 'Alice',
          at: '2026-03-01T10:00:00.000Z',
        }),
      'not-in-layout',
    ],
    [
      'a comment past its bound',
      (doc: Y.Doc) =>
        doc.getMap(TESTS_ROOT).set(`${TEST}/comment/x1`, {
          author: 'Alice',
          at: '2026-03-01T10:00:00.000Z',
          text: 'x'.repeat(5_001),
          editedAt: null,
          rev: 0,
        }),
      'not-in-layout',
    ],
  ])('refuses %s with a clear error, and applies none of it', async (_name, change, reason) => {
    const update = await updateFrom((doc) => {
      doc.transact(() => {
        setNote(doc, TEST, 'Riding along.', { by: 'Alice', at: '2026-03-01T11:00:00.000Z' });
        change(doc);
      });
    });
    const answer = await answerTo(updateFrame(STORE, update));
    expect(answer.accepted).toBe(false);
    expect(answer.stateless).toContain(reason);
    expect(answer.stateless).toContain('it was refused');
    expect(summary(await freshCopy())).toEqual(before);
  });

  it('refuses an update that depends on changes the server lacks', async () => {
    const elsewhere = new Y.Doc();
    setNote(elsewhere, 'test-2', 'Never sent.', { by: 'Alice', at: '2026-03-01T10:00:00.000Z' });
    const vector = Y.encodeStateVector(elsewhere);
    setNote(elsewhere, 'test-2', 'Never sent, then edited.', {
      by: 'Alice',
      at: '2026-03-01T10:01:00.000Z',
    });
    const answer = await answerTo(updateFrame(STORE, Y.encodeStateAsUpdate(elsewhere, vector)));
    expect(answer.accepted).toBe(false);
    expect(answer.stateless).toContain('incomplete-update');
    expect(summary(await freshCopy())).toEqual(before);
  });

  it('refuses an update over 5 MiB with a clear error; a frame over 8 MiB is cut by the socket', async () => {
    const big = await updateFrom((doc) =>
      doc.getText(noteRoot(TEST)).insert(0, 'x'.repeat(6 * 2 ** 20)),
    );
    const answer = await answerTo(updateFrame(STORE, big));
    expect(answer.accepted).toBe(false);
    expect(answer.stateless).toContain('update-too-large');
    expect(answer.stateless).toMatch(/An update of 6\.\d MiB is over the 5 MiB limit/);

    const raw = await authed();
    raw.send(updateFrame(STORE, new Uint8Array(9 * 2 ** 20)));
    expect((await raw.closed).code).toBe(1009);
    expect(summary(await freshCopy())).toEqual(before);
  });

  it('a desktop whose copy holds something off the layout is told why, in its stateless messages', async () => {
    const desktop = new Desktop(server.url, token);
    const doc = desktop.doc(STORE);
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(await freshCopy()));
    doc.getMap('secrets').set('apiKey', 'sk_live_x');
    desktop.connect([STORE]);
    try {
      await waitFor(() => desktop.stateless.length > 0, 'the refusal');
      expect(JSON.parse(desktop.stateless[0] ?? '{}')).toMatchObject({
        type: 'splitbook.refused',
        reason: expect.stringContaining('not-in-layout'),
        message: expect.stringContaining('secrets is not a root of the layout'),
      });
    } finally {
      desktop.disconnect();
    }
    expect(summary(await freshCopy())).toEqual(before);
  });

  it('closes a connection that floods it (rate limit per connection)', async () => {
    const raw = await authed();
    for (let i = 0; i < 5_000; i += 1) raw.send(queryAwarenessFrame(STORE));
    const closed = await raw.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toContain('Rate limit');
    expect(summary(await freshCopy())).toEqual(before);
  });
});
