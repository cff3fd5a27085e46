// Offline edits end to end in one process: real SQLite files, real HTTP on loopback to the simulator.
import { afterEach, describe, expect, it } from 'vitest';
import { ProblemError } from '#shared/problem';
import {
  DRAFT,
  LAUNCHED,
  editsWorld,
  patches,
  serverTest,
  syncStore,
  testWithStatus,
  testsWithStatus,
  type EditsWorld,
} from './support';

let world: EditsWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

async function problemOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemError) return error.problem;
    throw error;
  }
  throw new Error('expected a problem');
}

describe('recording and rebasing', () => {
  it('shows an edit at once, keeps it through a pull, and sends it once', async () => {
    world = await editsWorld();
    const { core, storeId } = world;
    const test = testWithStatus(world, LAUNCHED);
    const pending = await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { title: 'Mine' },
    });
    expect(pending.state).toBe('queued');
    expect(pending.changes).toEqual([
      { field: 'title', base: test.title, mine: 'Mine', conflict: false },
    ]);
    expect((await core.services.tests.get({ storeId, testId: test.id })).test.title).toBe('Mine');

    // A pull alone (push made impossible by a failing edit elsewhere is not needed): rebase keeps mine.
    world.sim.touchTest('Acme', test.id, { priority: 'high' });
    const report = await syncStore(core, storeId);
    expect(report.edits?.sent).toBe(1);
    expect(serverTest(world, test.id).title).toBe('Mine');
    // Their concurrent change of another field is merged silently.
    expect(serverTest(world, test.id).priority).toBe('high');
    const local = await core.services.tests.get({ storeId, testId: test.id });
    expect(local.test.title).toBe('Mine');
    expect(local.test.priority).toBe('high');
    expect(patches(world, test.id)).toHaveLength(1);
    expect(await core.services.edits.list({ storeId })).toEqual([]);
  });

  it('collapses many edits of one test into one request with only the changed fields', async () => {
    world = await editsWorld();
    const { core, storeId } = world;
    const test = testWithStatus(world, LAUNCHED);
    for (let i = 0; i < 10; i++)
      await core.services.edits.editTest({ storeId, testId: test.id, changes: { title: `T${i}` } });
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { impact: 3 } });
    // Back to the server's value: nothing to send for it.
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { effort: 4 } });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { effort: test.effort },
    });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { hypothesisDescription: null },
    });
    const [record] = await core.services.edits.list({ storeId });
    expect(record?.edits).toHaveLength(14);
    await core.services.edits.push({ storeId });
    const sent = patches(world, test.id);
    expect(sent).toHaveLength(1);
    const expected: Record<string, unknown> = { title: 'T9' };
    if (test.impact !== 3) expected.impact = 3;
    if (test.hypothesisDescription !== null) expected.hypothesisDescription = null;
    expect(sent[0]?.body).toEqual(expected);
  });

  it('undoes one pending edit and shows the server value again after the last', async () => {
    world = await editsWorld();
    const { core, storeId } = world;
    const test = testWithStatus(world, LAUNCHED);
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { title: 'A' } });
    const second = await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { title: 'B' },
    });
    const [first, last] = second.edits;
    await core.services.edits.undo({ seq: last?.seq ?? 0 });
    expect((await core.services.tests.get({ storeId, testId: test.id })).test.title).toBe('A');
    await core.services.edits.undo({ seq: first?.seq ?? 0 });
    expect((await core.services.tests.get({ storeId, testId: test.id })).test.title).toBe(
      test.title,
    );
    expect(await core.services.edits.list({ storeId })).toEqual([]);
  });
});

describe('conflicts', () => {
  async function conflicted(w: EditsWorld) {
    const test = testWithStatus(w, LAUNCHED);
    await w.core.services.edits.editTest({
      storeId: w.storeId,
      testId: test.id,
      changes: { title: 'Mine' },
    });
    w.sim.touchTest('Acme', test.id, { title: 'Theirs' });
    const report = await syncStore(w.core, w.storeId);
    expect(report.edits?.conflicts).toBe(1);
    const [record] = await w.core.services.edits.list({ storeId: w.storeId });
    expect(record?.state).toBe('conflict');
    expect(record?.changes[0]).toMatchObject({
      field: 'title',
      base: test.title,
      mine: 'Mine',
      theirs: 'Theirs',
      conflict: true,
    });
    // Held, not sent; the user keeps seeing their value.
    expect(patches(w, test.id)).toHaveLength(0);
    expect(
      (await w.core.services.tests.get({ storeId: w.storeId, testId: test.id })).test.title,
    ).toBe('Mine');
    return test;
  }

  it.each([
    ['mine', undefined, 'Mine'],
    ['theirs', undefined, 'Theirs'],
    ['value', 'Third', 'Third'],
  ] as const)('is held until the user picks %s', async (choice, value, expected) => {
    world = await editsWorld();
    const test = await conflicted(world);
    await world.core.services.edits.resolveConflict({
      storeId: world.storeId,
      kind: 'test',
      recordId: test.id,
      field: 'title',
      choice,
      value,
    });
    await syncStore(world.core, world.storeId);
    expect(serverTest(world, test.id).title).toBe(expected);
    expect(patches(world, test.id)).toHaveLength(choice === 'theirs' ? 0 : 1);
    expect(await world.core.services.edits.list({ storeId: world.storeId })).toEqual([]);
    expect(
      (await world.core.services.tests.get({ storeId: world.storeId, testId: test.id })).test.title,
    ).toBe(expected);
  });
});

describe('mutability and refusals', () => {
  it('refuses a locked field locally, and fails before sending when the test launched meanwhile', async () => {
    world = await editsWorld();
    const { core, storeId } = world;
    const live = testWithStatus(world, LAUNCHED);
    const refused = await problemOf(
      core.services.edits.editTest({ storeId, testId: live.id, changes: { device: 'mobile' } }),
    );
    expect(refused.status).toBe(422);
    expect(refused.detail).toContain('locked after launch');
    const notEnded = await problemOf(
      core.services.edits.editTest({ storeId, testId: live.id, changes: { implemented: true } }),
    );
    expect(notEnded.detail).toContain('only after the test has ended');

    const draft = testWithStatus(world, DRAFT);
    await core.services.edits.editTest({
      storeId,
      testId: draft.id,
      changes: { endWhenSignificant: !draft.endWhenSignificant },
    });
    world.sim.touchTest('Acme', draft.id, { status: 'active' });
    const report = await syncStore(core, storeId);
    expect(report.edits?.failed).toBe(1);
    const [record] = await core.services.edits.list({ storeId });
    expect(record?.state).toBe('failed');
    expect(record?.problem?.detail).toContain('locked after launch');
    expect(patches(world)).toHaveLength(0);
  });

  it("marks a server's refusal failed with its words; the user can change it and retry, or discard", async () => {
    world = await editsWorld();
    const { core, storeId } = world;
    const test = testWithStatus(world, LAUNCHED);
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { impact: 9 } });
    await core.services.edits.push({ storeId });
    const [failed] = await core.services.edits.list({ storeId });
    expect(failed?.state).toBe('failed');
    expect(failed?.problem?.status).toBe(400);
    expect(failed?.problem?.detail).toContain('impact');
    // Changing it re-queues it.
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { impact: 2 } });
    await core.services.edits.push({ storeId });
    expect(await core.services.edits.list({ storeId })).toEqual([]);
    expect(serverTest(world, test.id).impact).toBe(2);
    // A second refusal, discarded: the server's value comes back.
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { effort: 0 } });
    await core.services.edits.push({ storeId });
    await core.services.edits.discard({ storeId, kind: 'test', recordId: test.id });
    expect((await core.services.tests.get({ storeId, testId: test.id })).test.effort).toBe(
      test.effort,
    );
  });

  it('learns that a key is read-only from a 403 and refuses further edits', async () => {
    world = await editsWorld({ readOnly: true });
    const { core, storeId } = world;
    const test = testWithStatus(world, LAUNCHED);
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { title: 'Nope' } });
    await core.services.edits.push({ storeId });
    const [record] = await core.services.edits.list({ storeId });
    expect(record?.state).toBe('failed');
    expect(record?.problem?.status).toBe(403);
    const [summary] = await core.services.stores.list({});
    expect(summary?.edits?.readOnly).toContain('read-only');
    const refused = await problemOf(
      core.services.edits.editTest({ storeId, testId: test.id, changes: { title: 'Again' } }),
    );
    expect(refused.status).toBe(403);
  });

  it('keeps edits queued through a 429 storm and sends each once', async () => {
    world = await editsWorld();
    const { core, storeId } = world;
    const tests = testsWithStatus(world, LAUNCHED).slice(0, 8);
    for (const t of tests)
      await core.services.edits.editTest({
        storeId,
        testId: t.id,
        changes: { title: `${t.title} (r)` },
      });
    world.sim.setRate({ capacity: 2, refillPerSecond: 8 });
    world.sim.resetStats();
    const [summary] = await core.services.edits.push({ storeId });
    expect(summary).toMatchObject({ sent: tests.length, failed: 0 });
    // The storm did throttle the push (on reads or writes), and every test still got its one PATCH.
    const total429 = Object.values(world.sim.stats().byRoute).reduce(
      (n, r) => n + (r['429'] ?? 0),
      0,
    );
    expect(total429).toBeGreaterThan(0);
    for (const t of tests) expect(serverTest(world, t.id).title).toBe(`${t.title} (r)`);
    expect(patches(world)).toHaveLength(tests.length);
  }, 30_000);
});

describe('creates', () => {
  it("catches duplicate names locally, and handles the store's 409 and 400", async () => {
    world = await editsWorld();
    const { core, storeId, sim } = world;
    const existing = sim.snapshot('Acme');
    const someTag = (await core.services.tags.list({ storeId }))[0];
    if (someTag) {
      const dup = await problemOf(
        core.services.edits.createTag({ storeId, name: someTag.name.toUpperCase() }),
      );
      expect(dup.status).toBe(409);
    }
    const audience = existing.customAudiences[0];
    if (audience) {
      const dup = await problemOf(
        core.services.edits.createAudience({ storeId, name: audience.name, rules: [] }),
      );
      expect(dup.status).toBe(400);
    }
    // Someone else creates the same names while we are offline.
    await core.services.edits.createTag({ storeId, name: 'Checkout' + 'Z' });
    await core.services.edits.createAudience({ storeId, name: 'Returning Danes', rules: [] });
    const headers = { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' };
    await fetch(`${world.served.url}/api/public/v1/tags`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'checkoutz' }),
    });
    await fetch(`${world.served.url}/api/public/v1/custom-audiences`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Returning Danes' }),
    });
    await core.services.edits.push({ storeId });
    const records = await core.services.edits.list({ storeId });
    expect(records.map((r) => [r.kind, r.state, r.problem?.status])).toEqual([
      ['tag', 'failed', 409],
      ['audience', 'failed', 400],
    ]);
  });

  it("sends an edit that uses an offline-created tag with the store's id", async () => {
    world = await editsWorld();
    const { core, storeId, served } = world;
    const test = testWithStatus(world, LAUNCHED);
    await served.setOffline(true);
    const tag = await core.services.edits.createTag({ storeId, name: 'Made offline' });
    await core.services.edits.createAudience({
      storeId,
      name: 'Offline audience',
      rules: [{ dimension: 'country', operator: 'in', values: ['DK'], selector: null }],
    });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { tagIds: [...test.tags.map((t) => t.id), tag.id] },
    });
    const local = await core.services.tests.get({ storeId, testId: test.id });
    expect(local.test.tags.map((t) => t.name)).toContain('Made offline');
    const offline = await syncStore(core, storeId);
    expect(offline.outcome).toBe('offline');
    expect((await core.services.edits.list({ storeId })).map((r) => r.state)).toEqual([
      'queued',
      'queued',
      'queued',
    ]);
    await served.setOffline(false);
    const report = await syncStore(core, storeId);
    expect(report.edits).toMatchObject({ sent: 3, failed: 0 });
    const server = world.sim.snapshot('Acme');
    const created = server.tags.filter((t) => t.name === 'Made offline');
    expect(created).toHaveLength(1);
    expect(serverTest(world, test.id).tags.map((t) => t.id)).toContain(created[0]?.id);
    expect(server.customAudiences.filter((a) => a.name === 'Offline audience')).toHaveLength(1);
    expect(tag.id).not.toBe(created[0]?.id);
  }, 30_000);

  it("one Send now after reconnecting creates the new tag, sends the retitle that names it, and clears 'can't be reached' (issue 44, 9)", async () => {
    world = await editsWorld();
    const { core, storeId, served } = world;
    const test = testWithStatus(world, LAUNCHED);
    await served.setOffline(true);
    const offline = await syncStore(core, storeId);
    expect(offline.outcome).toBe('offline');
    // Offline: the test retitled, then a new tag made and put on it.
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { title: 'Q4 retitle' },
    });
    const tag = await core.services.edits.createTag({ storeId, name: 'Q4 ideas' });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { tagIds: [...test.tags.map((t) => t.id), tag.id] },
    });
    const [before] = await core.services.stores.list({});
    expect(before?.sync.state).toBe('offline');

    await served.setOffline(false);
    const events: string[] = [];
    const unsubscribe = core.subscribe((event) => events.push(event.name));
    const [summary] = await core.services.edits.push({ storeId });
    unsubscribe();
    expect(summary).toMatchObject({ sent: 2, waiting: 0, failed: 0, problem: null });
    expect(await core.services.edits.list({ storeId })).toEqual([]);
    const created = world.sim.snapshot('Acme').tags.find((t) => t.name === 'Q4 ideas');
    expect(serverTest(world, test.id).title).toBe('Q4 retitle');
    expect(serverTest(world, test.id).tags.map((t) => t.id)).toContain(created?.id);
    // The store answered: it no longer reads "can't be reached", and the window hears of it.
    const [after] = await core.services.stores.list({});
    expect(after?.sync.state).not.toBe('offline');
    expect(after?.sync.lastOutcome).toBeNull();
    expect(events).toContain('stores.changed');
  }, 30_000);

  it('renames or removes a tag the store has not received, never one it may hold (issue 21, 2)', async () => {
    world = await editsWorld();
    const { core, storeId, served } = world;
    const test = testWithStatus(world, LAUNCHED);
    await served.setOffline(true);
    const tag = await core.services.edits.createTag({ storeId, name: 'Che' });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { tagIds: [...test.tags.map((t) => t.id), tag.id] },
    });
    const [record] = (await core.services.edits.list({ storeId })).filter((r) => r.kind === 'tag');
    expect(record?.renamable).toBe(true);
    // The test's pending change names the new tag by its name, not its local id.
    const edit = (await core.services.edits.list({ storeId })).find((r) => r.kind === 'test');
    expect(edit?.names[tag.id]).toBe('Che');

    const taken = (await core.services.tags.list({ storeId })).find((t) => t.id !== tag.id);
    if (taken) {
      const dup = await problemOf(
        core.services.edits.renameTag({ storeId, tagId: tag.id, name: taken.name.toUpperCase() }),
      );
      expect(dup.title).toBe('Duplicate tag name');
    }
    await core.services.edits.renameTag({ storeId, tagId: tag.id, name: 'Checkout speed' });
    const local = await core.services.tests.get({ storeId, testId: test.id });
    expect(local.test.tags.map((t) => t.name)).toContain('Checkout speed');
    expect(local.test.tags.map((t) => t.name)).not.toContain('Che');

    await served.setOffline(false);
    await syncStore(core, storeId); // its first write may meet a socket the offline store closed
    await core.services.edits.push({ storeId });
    expect(await core.services.edits.list({ storeId })).toEqual([]);
    const names = world.sim.snapshot('Acme').tags.map((t) => t.name);
    expect(names).toContain('Checkout speed');
    expect(names).not.toContain('Che');
    const sentNames = world.writes
      .filter((w) => w.path.endsWith('/tags'))
      .map((w) => (w.body as { name: string }).name);
    expect(new Set(sentNames)).toEqual(new Set(['Checkout speed']));

    // A create sent without an answer may exist in the store under its name: no rename then.
    const lost = await core.services.edits.createTag({ storeId, name: 'Lost answer' });
    world.sim.loseAnswers(1, 'reset');
    await core.services.edits.push({ storeId });
    const held = (await core.services.edits.list({ storeId })).find((r) => r.recordId === lost.id);
    expect(held?.renamable).toBe(false);
    const refused = await problemOf(
      core.services.edits.renameTag({ storeId, tagId: lost.id, name: 'Other' }),
    );
    expect(refused.title).toBe('The tag may be in the store already');

    // Removing a tag never sent: it leaves the local tags and the edits that used it.
    await served.setOffline(true);
    const unsent = await core.services.edits.createTag({ storeId, name: 'Never sent' });
    await core.services.edits.editTest({
      storeId,
      testId: test.id,
      changes: { tagIds: [...local.test.tags.map((t) => t.id), unsent.id] },
    });
    await core.services.edits.discard({ storeId, kind: 'tag', recordId: unsent.id });
    expect((await core.services.tags.list({ storeId })).map((t) => t.name)).not.toContain(
      'Never sent',
    );
    const after = await core.services.tests.get({ storeId, testId: test.id });
    expect(after.test.tags.map((t) => t.name)).not.toContain('Never sent');
  }, 30_000);

  it('campaigns: clearing sends null, untouched fields are omitted, a concurrent change is a conflict', async () => {
    world = await editsWorld();
    const { core, storeId } = world;
    const rows = await core.services.campaigns.list({ storeId });
    const [campaign, other] = rows.map((r) => r.campaign);
    if (!campaign || !other) throw new Error('two campaigns needed');
    await core.services.edits.editCampaign({
      storeId,
      campaignId: campaign.id,
      changes: { objective: null, name: 'Renamed' },
    });
    await core.services.edits.push({ storeId });
    const sent = patches(world, campaign.id);
    expect(sent.map((s) => s.body)).toEqual([
      campaign.objective === null ? { name: 'Renamed' } : { objective: null, name: 'Renamed' },
    ]);
    expect(world.sim.snapshot('Acme').campaigns.find((c) => c.id === campaign.id)?.name).toBe(
      'Renamed',
    );

    // Another user changed the goal meanwhile: a conflict on that field only.
    await core.services.edits.editCampaign({
      storeId,
      campaignId: other.id,
      changes: { goal: 'Mine' },
    });
    const headers = { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' };
    await fetch(`${world.served.url}/api/public/v1/campaigns/${other.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ goal: 'Theirs' }),
    });
    await core.services.edits.push({ storeId });
    const [held] = await core.services.edits.list({ storeId });
    expect(held?.state).toBe('conflict');
    expect(held?.changes[0]).toMatchObject({
      field: 'goal',
      mine: 'Mine',
      theirs: 'Theirs',
      conflict: true,
    });
    await core.services.edits.resolveConflict({
      storeId,
      kind: 'campaign',
      recordId: other.id,
      field: 'goal',
      choice: 'mine',
    });
    await core.services.edits.push({ storeId });
    expect(world.sim.snapshot('Acme').campaigns.find((c) => c.id === other.id)?.goal).toBe('Mine');
    expect(await core.services.edits.list({ storeId })).toEqual([]);
  });
});

describe("the Changes view and the user's own edits (issue 21, 6)", () => {
  it('lists an edit Splitbook sent and the store confirmed as "your edit", apart from changes made elsewhere', async () => {
    world = await editsWorld();
    const { core, storeId, sim } = world;
    const [mine, theirs] = testsWithStatus(world, LAUNCHED);
    if (!mine || !theirs) throw new Error('two launched tests are needed');
    const tag = (await core.services.tags.list({ storeId })).find(
      (t) => !mine.tags.some((m) => m.id === t.id),
    );
    if (!tag) throw new Error('a tag the test does not carry is needed');
    await core.services.edits.editTest({
      storeId,
      testId: mine.id,
      changes: { title: 'Sent from Splitbook', tagIds: [...mine.tags.map((t) => t.id), tag.id] },
    });
    sim.touchTest('Acme', theirs.id, { title: 'Renamed by a colleague' });
    const report = await syncStore(core, storeId);
    expect(report.edits?.sent).toBe(1);

    const changes = await core.services.review.changes({
      storeId,
      since: null,
      probabilityThreshold: 0.1,
    });
    const own = changes.lines.filter(
      (l) => l.testId === mine.id && (l.field === 'title' || l.field === 'tags'),
    );
    expect(own.map((l) => [l.field, l.own]).sort()).toEqual([
      ['tags', 'sent'],
      ['title', 'sent'],
    ]);
    expect(own.find((l) => l.field === 'title')?.summary).toMatch(
      /^Title: your edit, sent from Splitbook: .* → “Sent from Splitbook”$/,
    );
    const other = changes.lines.find((l) => l.testId === theirs.id && l.field === 'title');
    expect(other).toMatchObject({ own: null, to: 'Renamed by a colleague' });
    expect(other?.summary).toMatch(/changed on the server/);
    // My edits are not counted as changes to review.
    expect(changes.stores[0]).toMatchObject({
      count: changes.lines.filter((l) => l.own === null).length,
      ownCount: 2,
    });

    // Changed again elsewhere after my edit: then it is their change.
    sim.touchTest('Acme', mine.id, { title: 'Their title after mine' });
    await syncStore(core, storeId);
    const later = await core.services.review.changes({
      storeId,
      since: null,
      probabilityThreshold: 0.1,
    });
    expect(later.lines.find((l) => l.testId === mine.id && l.field === 'title')).toMatchObject({
      own: null,
      to: 'Their title after mine',
    });
  }, 30_000);

  it('lists an edit the store refused, still waiting in the outbox, as "your edit, not yet sent"', async () => {
    world = await editsWorld({ readOnly: true });
    const { core, storeId } = world;
    const test = testWithStatus(world, LAUNCHED);
    const priority = test.priority === 'low' ? 'high' : 'low';
    await core.services.edits.editTest({ storeId, testId: test.id, changes: { priority } });
    await syncStore(core, storeId);
    expect((await core.services.edits.list({ storeId }))[0]?.state).toBe('failed');
    const changes = await core.services.review.changes({
      storeId,
      since: null,
      probabilityThreshold: 0.1,
    });
    const line = changes.lines.find((l) => l.testId === test.id && l.field === 'priority');
    expect(line).toMatchObject({ own: 'unsent', to: priority });
    expect(changes.stores[0]?.count).toBe(0);
  }, 30_000);
});
