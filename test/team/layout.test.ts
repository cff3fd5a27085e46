// The shared store's document (src/shared/team): each rule of its merge semantics, with two and three Y.Docs exchanging updates offline and merging.
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { checkTeamDoc } from '#shared/team/check';
import { TEAM_LIMITS, TESTS_ROOT, noteRoot } from '#shared/team/layout';
import { addComment, commentsOf, deleteComment, editComment } from '#shared/team/comments';
import { initTeamDoc, teamSchemaVersion, teamTestIds, TeamValueError } from '#shared/team/records';
import {
  addAnnotation,
  appendNote,
  markReviewed,
  noteOf,
  removeAnnotation,
  setNote,
  setTakeaway,
  takeawayOf,
  teamAnnotations,
  teamNotes,
  teamReviews,
} from '#shared/team/texts';
import {
  approveSignOff,
  decisionSettingsOf,
  ownerOf,
  planOf,
  proposeSignOff,
  setDecisionSettings,
  setOwner,
  setPlan,
  signOffOf,
  withdrawSignOff,
} from '#shared/team/values';

const T1 = '7d1c4a50-0000-4000-8000-000000000001';
const T2 = '7d1c4a50-0000-4000-8000-000000000002';
const alice = (at: string) => ({ by: 'Alice', at });
const bob = (at: string) => ({ by: 'Bob', at });
const carol = (at: string) => ({ by: 'Carol', at });

/** Brings every doc up to date with every other, as a server round would. */
function merge(...docs: Y.Doc[]): void {
  for (const from of docs) {
    for (const to of docs) {
      if (from !== to) Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)));
    }
  }
}

function docs(count: number): Y.Doc[] {
  const first = new Y.Doc();
  initTeamDoc(first);
  const out = [first];
  for (let i = 1; i < count; i += 1) out.push(new Y.Doc());
  merge(...out);
  return out;
}

describe('texts merge character by character', () => {
  it('two desktops typing offline in the same note keep both texts, identical on both', () => {
    const [a, b] = docs(2) as [Y.Doc, Y.Doc];
    setNote(a, T1, 'Checkout test.', alice('2026-03-01T10:00:00.000Z'));
    merge(a, b);
    // Offline: Alice adds at the start, Bob at the end.
    setNote(a, T1, 'Mobile only. Checkout test.', alice('2026-03-01T11:00:00.000Z'));
    appendNote(b, T1, 'Bob: revenue looks flat.', bob('2026-03-01T11:05:00.000Z'));
    merge(a, b);
    const text = noteOf(a, T1).text;
    expect(text).toBe('Mobile only. Checkout test.\nBob: revenue looks flat.');
    expect(noteOf(b, T1).text).toBe(text);
    expect(noteOf(a, T1).authors.map((author) => author.name)).toEqual(['Bob', 'Alice']);
    expect(noteOf(b, T1).updatedAt).toBe('2026-03-01T11:05:00.000Z');
  });

  it('three desktops each starting the same note offline keep all three texts (a root per test, not a nested text)', () => {
    const [a, b, c] = docs(3) as [Y.Doc, Y.Doc, Y.Doc];
    setNote(a, T1, 'A.', alice('2026-03-01T10:00:00.000Z'));
    setNote(b, T1, 'B.', bob('2026-03-01T10:00:00.000Z'));
    setNote(c, T1, 'C.', carol('2026-03-01T10:00:00.000Z'));
    merge(a, b, c);
    const text = noteOf(a, T1).text;
    for (const part of ['A.', 'B.', 'C.']) expect(text).toContain(part);
    expect(text).toHaveLength(6);
    expect(noteOf(b, T1).text).toBe(text);
    expect(noteOf(c, T1).text).toBe(text);
    expect(teamNotes(c).map((note) => note.testId)).toEqual([T1]);
  });

  it('a takeaway is one line of at most 200 characters; a note at most 20,000', () => {
    const [a] = docs(1) as [Y.Doc];
    expect(() => setTakeaway(a, T1, 'two\nlines', alice('2026-03-01T10:00:00.000Z'))).toThrow(
      'one line',
    );
    expect(() => setTakeaway(a, T1, 'x'.repeat(201), alice('2026-03-01T10:00:00.000Z'))).toThrow(
      TeamValueError,
    );
    expect(() =>
      setNote(a, T1, 'x'.repeat(TEAM_LIMITS.note + 1), alice('2026-03-01T10:00:00.000Z')),
    ).toThrow('20,000');
    setTakeaway(a, T1, 'Free shipping lifts carts.', alice('2026-03-01T10:00:00.000Z'));
    expect(takeawayOf(a, T1)).toMatchObject({
      text: 'Free shipping lifts carts.',
      authors: [{ name: 'Alice' }],
    });
  });

  it('replacing a note splices only what changed, and never splits a character in two', () => {
    const [a, b] = docs(2) as [Y.Doc, Y.Doc];
    setNote(a, T1, 'one 😀 two', alice('2026-03-01T10:00:00.000Z'));
    merge(a, b);
    setNote(a, T1, 'one 😃 two', alice('2026-03-01T10:01:00.000Z')); // the emojis share their high surrogate
    setNote(b, T1, 'one 😀 two three', bob('2026-03-01T10:01:00.000Z'));
    merge(a, b);
    expect(noteOf(a, T1).text).toBe('one 😃 two three');
    expect(noteOf(b, T1).text).toBe('one 😃 two three');
  });
});

describe('single values take the last writer, and say who and when', () => {
  it('owner: of two offline writes the later one wins on every desktop, whichever merges first', () => {
    const [a, b, c] = docs(3) as [Y.Doc, Y.Doc, Y.Doc];
    setOwner(a, T1, 'Alice', alice('2026-03-01T10:00:00.000Z'));
    setOwner(b, T1, 'Bob', bob('2026-03-01T11:00:00.000Z'));
    merge(b, c);
    merge(a, c);
    merge(a, b, c);
    for (const doc of [a, b, c]) {
      expect(ownerOf(doc, T1)).toEqual({ value: 'Bob', by: 'Bob', at: '2026-03-01T11:00:00.000Z' });
    }
  });

  it('a write made after seeing another wins even with an earlier clock (causally last)', () => {
    const [a, b] = docs(2) as [Y.Doc, Y.Doc];
    setPlan(a, T1, 28, alice('2026-03-01T12:00:00.000Z'));
    merge(a, b);
    setPlan(b, T1, 42, bob('2026-03-01T09:00:00.000Z')); // Bob's clock is behind
    merge(a, b);
    expect(planOf(a, T1)).toEqual({ value: 42, by: 'Bob', at: '2026-03-01T09:00:00.000Z' });
    expect(() => setPlan(a, T1, 3, alice('2026-03-01T12:00:00.000Z'))).toThrow('7 to 365');
    setPlan(a, T1, null, alice('2026-03-01T13:00:00.000Z'));
    merge(a, b);
    expect(planOf(b, T1)?.value).toBeNull();
  });

  it("decision settings: the store's override is replaced whole by the last writer", () => {
    const [a, b] = docs(2) as [Y.Doc, Y.Doc];
    setDecisionSettings(a, { credibility: 0.9 }, alice('2026-03-01T10:00:00.000Z'));
    setDecisionSettings(b, { minEffect: 0.02 }, bob('2026-03-01T10:00:01.000Z'));
    merge(a, b);
    expect(decisionSettingsOf(a)).toEqual({
      value: { minEffect: 0.02 },
      by: 'Bob',
      at: '2026-03-01T10:00:01.000Z',
    });
    expect(decisionSettingsOf(b)).toEqual(decisionSettingsOf(a));
    expect(() =>
      setDecisionSettings(a, { credibility: 2 }, alice('2026-03-01T10:00:00.000Z')),
    ).toThrow('out of bounds');
    // One candidate per key is left after a merge and a write that saw both.
    setDecisionSettings(a, { credibility: 0.99 }, alice('2026-03-01T10:05:00.000Z'));
    expect([...a.getMap('store').keys()].filter((key) => key.startsWith('settings/'))).toEqual([
      'settings/Alice',
    ]);
  });
});

describe('comments: a thread per test, each its author to edit and delete', () => {
  it('others read a comment; only its author edits or deletes it', () => {
    const [a, b] = docs(2) as [Y.Doc, Y.Doc];
    const id = addComment(a, T1, 'Is the SRM check fine?', alice('2026-03-01T10:00:00.000Z'));
    addComment(b, T1, 'Looking now.', bob('2026-03-01T10:01:00.000Z'));
    merge(a, b);
    expect(commentsOf(b, T1).map((comment) => [comment.author, comment.text])).toEqual([
      ['Alice', 'Is the SRM check fine?'],
      ['Bob', 'Looking now.'],
    ]);
    expect(() => editComment(b, T1, id, 'Hijacked', bob('2026-03-01T10:02:00.000Z'))).toThrow(
      'Only Alice',
    );
    expect(() => deleteComment(b, T1, id, bob('2026-03-01T10:02:00.000Z'))).toThrow('Only Alice');
    editComment(a, T1, id, 'Is the SRM check fine now?', alice('2026-03-01T10:03:00.000Z'));
    merge(a, b);
    expect(commentsOf(b, T1)[0]).toMatchObject({
      text: 'Is the SRM check fine now?',
      editedAt: '2026-03-01T10:03:00.000Z',
      deleted: null,
    });
    expect(() => addComment(a, T1, '   ', alice('2026-03-01T10:04:00.000Z'))).toThrow('1 to 5,000');
  });

  it('deleted on one desktop while edited on another: it ends deleted, and says an edit was overridden', () => {
    // Alice's laptop and Alice's desktop, both offline.
    const [laptop, desktop, other] = docs(3) as [Y.Doc, Y.Doc, Y.Doc];
    const id = addComment(laptop, T1, 'Ship it?', alice('2026-03-01T10:00:00.000Z'));
    merge(laptop, desktop, other);
    deleteComment(laptop, T1, id, alice('2026-03-01T11:00:00.000Z'));
    editComment(desktop, T1, id, 'Ship it? (edited later)', alice('2026-03-01T12:00:00.000Z'));
    merge(desktop, other);
    merge(laptop, desktop, other);
    for (const doc of [laptop, desktop, other]) {
      expect(commentsOf(doc, T1)).toEqual([
        {
          id,
          author: 'Alice',
          at: '2026-03-01T10:00:00.000Z',
          text: null,
          editedAt: null,
          deleted: { by: 'Alice', at: '2026-03-01T11:00:00.000Z' },
          editOverridden: true,
        },
      ]);
    }
    expect(() => editComment(desktop, T1, id, 'again', alice('2026-03-01T13:00:00.000Z'))).toThrow(
      'was deleted',
    );
  });

  it("a deletion without a concurrent edit takes the comment's text out of the document", () => {
    const [a] = docs(1) as [Y.Doc];
    const id = addComment(a, T1, 'secret-ish remark', alice('2026-03-01T10:00:00.000Z'));
    deleteComment(a, T1, id, alice('2026-03-01T10:01:00.000Z'));
    expect(commentsOf(a, T1)[0]).toMatchObject({ text: null, editOverridden: false });
    expect(JSON.stringify(a.getMap(TESTS_ROOT).toJSON())).not.toContain('secret-ish');
  });
});

describe('sign-off: proposed, then approved by NAME on DATE', () => {
  it('a call proposed by one member is approved by another; an approval of another call is refused', () => {
    const [a, b] = docs(2) as [Y.Doc, Y.Doc];
    expect(signOffOf(a, T1)).toBeNull();
    proposeSignOff(a, T1, 'ship', alice('2026-03-02T09:00:00.000Z'));
    merge(a, b);
    expect(signOffOf(b, T1)).toMatchObject({
      state: 'proposed',
      call: 'ship',
      proposedBy: 'Alice',
    });
    expect(() => approveSignOff(b, T1, 'keep_control', bob('2026-03-02T10:00:00.000Z'))).toThrow(
      'propose it again',
    );
    approveSignOff(b, T1, 'ship', bob('2026-03-02T10:00:00.000Z'));
    merge(a, b);
    expect(signOffOf(a, T1)).toEqual({
      call: 'ship',
      proposedBy: 'Alice',
      proposedAt: '2026-03-02T09:00:00.000Z',
      approvedBy: 'Bob',
      approvedAt: '2026-03-02T10:00:00.000Z',
      state: 'approved',
      by: 'Bob',
      at: '2026-03-02T10:00:00.000Z',
    });
    withdrawSignOff(a, T1, alice('2026-03-02T11:00:00.000Z'));
    merge(a, b);
    expect(signOffOf(b, T1)).toBeNull();
  });
});

describe('store records: reviews and annotations', () => {
  it("each member's latest review is kept; annotations added on three desktops all survive", () => {
    const [a, b, c] = docs(3) as [Y.Doc, Y.Doc, Y.Doc];
    markReviewed(a, alice('2026-03-01T10:00:00.000Z'));
    markReviewed(a, alice('2026-03-02T10:00:00.000Z'));
    markReviewed(b, bob('2026-03-01T12:00:00.000Z'));
    const launch = addAnnotation(
      a,
      { day: '2026-02-20', label: 'Launch' },
      alice('2026-03-01T10:00:00.000Z'),
    );
    addAnnotation(b, { day: '2026-02-25', label: 'Sale' }, bob('2026-03-01T10:00:00.000Z'));
    addAnnotation(c, { day: '2026-02-10', label: 'Outage' }, carol('2026-03-01T10:00:00.000Z'));
    merge(a, b, c);
    expect(teamReviews(c)).toEqual([
      { by: 'Alice', at: '2026-03-02T10:00:00.000Z' },
      { by: 'Bob', at: '2026-03-01T12:00:00.000Z' },
    ]);
    expect(teamAnnotations(c).map((note) => note.label)).toEqual(['Outage', 'Launch', 'Sale']);
    expect(removeAnnotation(c, launch.id)).toBe(true);
    expect(removeAnnotation(c, launch.id)).toBe(false);
    merge(a, b, c);
    expect(teamAnnotations(a).map((note) => note.label)).toEqual(['Outage', 'Sale']);
    expect(() =>
      addAnnotation(a, { day: '2026-13-01', label: 'x' }, alice('2026-03-01T10:00:00.000Z')),
    ).toThrow(TeamValueError);
  });

  it('names who write are checked: no control characters, no padding', () => {
    const [a] = docs(1) as [Y.Doc];
    expect(() =>
      setOwner(a, T1, 'Bob', { by: 'Al\u0000ice', at: '2026-03-01T10:00:00.000Z' }),
    ).toThrow('not a valid member name');
    expect(() => setOwner(a, T1, ' Bob', alice('2026-03-01T10:00:00.000Z'))).toThrow('not a valid');
    expect(() => setOwner(a, 'not a test id!', 'Bob', alice('2026-03-01T10:00:00.000Z'))).toThrow(
      'not a valid test id',
    );
    expect(() => setOwner(a, T1, 'Bob', { by: 'Alice', at: 'yesterday' })).toThrow('ISO');
  });
});

describe('the checker (what the server runs before it accepts an update)', () => {
  it('a document written only through the helpers fits the layout', () => {
    const [a, b] = docs(2) as [Y.Doc, Y.Doc];
    setNote(a, T1, 'note', alice('2026-03-01T10:00:00.000Z'));
    setTakeaway(b, T2, 'takeaway', bob('2026-03-01T10:00:00.000Z'));
    setOwner(a, T2, 'Bob', alice('2026-03-01T10:00:00.000Z'));
    addComment(b, T1, 'hi', bob('2026-03-01T10:00:00.000Z'));
    proposeSignOff(a, T1, 'ship', alice('2026-03-01T10:00:00.000Z'));
    setDecisionSettings(a, { credibility: 0.9 }, alice('2026-03-01T10:00:00.000Z'));
    addAnnotation(b, { day: '2026-02-20', label: 'Launch' }, bob('2026-03-01T10:00:00.000Z'));
    merge(a, b);
    expect(checkTeamDoc(a)).toEqual([]);
    expect(teamSchemaVersion(b)).toBe(1);
    expect(teamTestIds(b)).toEqual([T1, T2]);
  });

  it.each([
    [
      'a root the layout has no place for',
      (doc: Y.Doc) => doc.getMap('secrets').set('apiKey', 'sk'),
      'not a root',
    ],
    [
      'a nested type in a record map',
      (doc: Y.Doc) => doc.getMap(TESTS_ROOT).set(`${T1}/owner/Alice`, new Y.Map()),
      'not a JSON record',
    ],
    [
      'a record that does not fit its schema',
      (doc: Y.Doc) =>
        doc.getMap(TESTS_ROOT).set(`${T1}/owner/Alice`, { value: 42, by: 'Alice', at: 'now' }),
      'schema',
    ],
    [
      'a key kind the layout lacks',
      (doc: Y.Doc) => doc.getMap('store').set('apiKey/Alice', { value: 'sk' }),
      'no key kind',
    ],
    [
      "a record in another member's name",
      (doc: Y.Doc) =>
        doc
          .getMap(TESTS_ROOT)
          .set(`${T1}/owner/Alice`, { value: 'Bob', by: 'Bob', at: '2026-03-01T10:00:00.000Z' }),
      'not by the member',
    ],
    [
      "a deletion of someone else's comment",
      (doc: Y.Doc) =>
        doc.getMap(TESTS_ROOT).set(`${T1}/commentDeleted/c1`, {
          author: 'Alice',
          postedAt: '2026-03-01T10:00:00.000Z',
          by: 'Bob',
          at: '2026-03-01T10:00:00.000Z',
          rev: 0,
        }),
      'author did not write',
    ],
    [
      'formatted text in a note',
      (doc: Y.Doc) => doc.getText(noteRoot(T1)).insert(0, 'bold', { bold: true }),
      'plain text',
    ],
    [
      'an embed in a note',
      (doc: Y.Doc) => doc.getText(noteRoot(T1)).insertEmbed(0, { image: 'x' }),
      'plain text',
    ],
    [
      'a keyed entry in a note',
      (doc: Y.Doc) => doc.getText(noteRoot(T1)).setAttribute('x', 'y'),
      'keyed entries',
    ],
    [
      'a record key naming no test',
      (doc: Y.Doc) =>
        doc.getMap(TESTS_ROOT).set('not a test!/owner/Alice', {
          value: 'Alice',
          by: 'Alice',
          at: '2026-03-01T10:00:00.000Z',
        }),
      'valid test id',
    ],
    [
      'list items in a record map',
      (doc: Y.Doc) => doc.getArray(TESTS_ROOT).insert(0, ['x']),
      'list items',
    ],
    [
      'a note past the hard bound',
      (doc: Y.Doc) => doc.getText(noteRoot(T1)).insert(0, 'x'.repeat(TEAM_LIMITS.hard.note + 1)),
      'over',
    ],
  ])('refuses %s', (_name, forge, message) => {
    const doc = new Y.Doc();
    initTeamDoc(doc);
    forge(doc);
    // The checker reads the roots as the layout types them, as the server does with a received copy.
    const copy = new Y.Doc();
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc));
    const problems = checkTeamDoc(copy);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.map((problem) => problem.problem).join('; ')).toContain(message);
  });
});
