// The local copy in the cache, on real SQLite files: a test's or campaign's row and raw JSON rewritten with
// pending changes applied, and the tag and audience look-ups an edit needs.
import { describe, expect, it } from 'vitest';
import { getTestDetail } from '#core/db/cache/reads';
import {
  audienceById,
  audiencesNamed,
  cachedCampaign,
  cachedTest,
  deleteAudience,
  deleteTag,
  saveAudience,
  saveTag,
  tagById,
  tagsNamed,
  writeLocalCampaign,
  writeLocalTest,
} from '#core/db/cache/local-copies';
import { applyCampaignChanges, applyTestChanges } from '#core/outbox/local-copies';
import { customAudience, defaultAudience, makeCampaign, makeTest, tag } from '../db/fixtures';
import { NOW, STORE, cache, outboxDb } from './support';

const server = makeTest({
  n: 1,
  title: 'Server title',
  tags: [tag(1, 'Checkout')],
  defaultAudiences: [defaultAudience(1, 'FR')],
  campaign: { id: makeCampaign(1, 'Spring').id, name: 'Spring' },
});

describe('a test with pending changes applied', () => {
  it('takes each edited field, the variant getting the traffic the control leaves', () => {
    const db = outboxDb();
    const local = applyTestChanges(db, STORE, server, {
      title: 'Mine',
      hypothesisDescription: null,
      controlTraffic: 30,
      impact: 4,
      implemented: true,
      endWhenSignificant: true,
    });
    expect(local).toMatchObject({
      title: 'Mine',
      hypothesisDescription: null,
      impact: 4,
      implemented: true,
      endWhenSignificant: true,
    });
    expect(local.control.traffic).toBe(30);
    expect(local.variant?.traffic).toBe(70);
    expect(server.title).toBe('Server title');
  });

  it('names tags, audiences and the campaign from the cache, a local create included', () => {
    const db = outboxDb();
    const summer = makeCampaign(2, 'Summer');
    const audience = customAudience(1, 'Danes');
    cache(db, { tests: [server], campaigns: [summer], audiences: [audience] });
    saveTag(db, STORE, { id: 'local-tag', name: 'Made offline' });
    const local = applyTestChanges(db, STORE, server, {
      tagIds: [tag(1, 'Checkout').id, 'local-tag', 'nowhere'],
      customAudienceIds: [audience.id],
      defaultAudiences: [defaultAudience(1, 'FR').id],
      campaignId: summer.id,
    });
    expect(local.tags.map((t) => t.name)).toEqual(['Checkout', 'Made offline', '(unknown tag)']);
    expect(local.customAudiences.map((a) => a.name)).toEqual(['Danes']);
    expect(local.defaultAudiences.map((a) => a.value)).toEqual(['FR']);
    expect(local.campaign).toMatchObject({ id: summer.id, name: 'Summer' });
    expect(applyTestChanges(db, STORE, server, { campaignId: null }).campaign).toBeNull();
  });

  it('a campaign takes its name, objective and goal, null clearing', () => {
    const campaign = makeCampaign(1, 'Spring', { objective: 'More', goal: 'Sales' });
    expect(applyCampaignChanges(campaign, { name: 'Renamed', objective: null })).toMatchObject({
      name: 'Renamed',
      objective: null,
      goal: 'Sales',
    });
  });
});

describe('the cached row rewritten', () => {
  it("a test's row, raw JSON, tags and audiences become the local copy; an uncached test is left alone", () => {
    const db = outboxDb();
    cache(db, { tests: [server] });
    const audience = customAudience(2, 'Swedes');
    const made = tag(5, 'Made offline');
    writeLocalTest(db, STORE, {
      ...server,
      title: 'Local',
      tags: [made],
      customAudiences: [audience],
    });
    expect(cachedTest(db, STORE, server.id)?.title).toBe('Local');
    const detail = getTestDetail(db, STORE, server.id);
    expect(detail?.test.title).toBe('Local');
    expect(detail?.test.tags).toEqual([made]);
    expect(detail?.test.customAudiences).toEqual([audience]);
    // A tag seen on a test is known to the store's tag list.
    expect(tagById(db, STORE, made.id)).toEqual(made);
    writeLocalTest(db, STORE, makeTest({ n: 9, title: 'Not cached' }));
    expect(cachedTest(db, STORE, makeTest({ n: 9 }).id)).toBeNull();
  });

  it("a campaign's row and raw JSON become the local copy", () => {
    const db = outboxDb();
    const campaign = makeCampaign(1, 'Spring');
    cache(db, { campaigns: [campaign] });
    writeLocalCampaign(db, STORE, { ...campaign, name: 'Local', goal: 'Mine' });
    expect(cachedCampaign(db, STORE, campaign.id)).toMatchObject({ name: 'Local', goal: 'Mine' });
  });
});

describe('tags and audiences', () => {
  it('finds tags by name ignoring case, audiences by exact name', () => {
    const db = outboxDb();
    saveTag(db, STORE, { id: 't1', name: 'Checkout' });
    saveAudience(db, STORE, customAudience(1, 'Danes'), NOW);
    expect(tagsNamed(db, STORE, 'CHECKOUT')).toEqual([{ id: 't1', name: 'Checkout' }]);
    expect(audiencesNamed(db, STORE, 'Danes')).toHaveLength(1);
    expect(audiencesNamed(db, STORE, 'danes')).toEqual([]);
    expect(audienceById(db, STORE, customAudience(1, 'Danes').id)?.name).toBe('Danes');
    deleteTag(db, STORE, 't1');
    deleteAudience(db, STORE, customAudience(1, 'Danes').id);
    expect(tagsNamed(db, STORE, 'Checkout')).toEqual([]);
    expect(audienceById(db, STORE, customAudience(1, 'Danes').id)).toBeNull();
  });
});
