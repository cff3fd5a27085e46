// One simulated store: its records, their listing order, and the changes the API and the tests make.
// Tests start as heads (see generate.ts) and are built on first read, so large stores cost little
// until someone pages through them.
import type {
  Campaign,
  CampaignProgress,
  CustomAudience,
  DefaultAudience,
  Tag,
  Test,
  TestResults,
} from '#shared/api/index';
import { isEnded, isLive } from '#shared/domain/lifecycle';
import {
  generateCatalog,
  generateDraft,
  generateTest,
  generateTestHead,
  iso,
  type CampaignRecord,
  type GenerationContext,
} from './generate';
import { createRandom, hashSeed, type Random } from './random';
import { createResultsCache, type ResultsCache } from './results';

export type StoreInit = {
  id: string;
  name: string;
  seed: number;
  anchor: number;
  testCount: number;
};

/** What ordering, filtering and campaign progress need; `test` once the record is built (or was replaced). */
type Entry = {
  id: string;
  index: number;
  status: string;
  createdAt: number;
  campaignId: string | null;
  test: Test | null;
};

/** Listing order: newest first, ties by id, so pages stay stable while nothing is added. */
function byListingOrder(a: Entry, b: Entry): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A timestamp after both `now` and `previous`: an edit always moves `updatedAt` forward. */
export function nextUpdatedAt(previous: string, now: number): string {
  const before = Date.parse(previous);
  return iso(Number.isNaN(before) ? now : Math.max(now, before + 1));
}

export class StoreState {
  readonly id: string;
  readonly name: string;
  readonly tags: Tag[];
  readonly customAudiences: CustomAudience[];
  readonly defaultAudiences: readonly DefaultAudience[];
  readonly campaigns: CampaignRecord[];
  private readonly context: GenerationContext;
  private readonly entries = new Map<string, Entry>();
  private ordered: Entry[] | null = null;
  private nextDraftIndex = 0;
  private readonly results: ResultsCache;
  /** Tests with a planted sample-ratio mismatch: the share of variant visitors lost. */
  private readonly mismatches = new Map<string, number>();
  /** Ids of records created through the API: their own stream, so generation stays untouched. */
  private readonly createdIds: Random;

  constructor(init: StoreInit) {
    this.id = init.id;
    this.name = init.name;
    const catalog = generateCatalog(init.seed, init.name, init.anchor);
    this.context = { seed: init.seed, anchor: init.anchor, catalog };
    this.tags = catalog.tags;
    this.customAudiences = catalog.customAudiences;
    this.defaultAudiences = catalog.defaultAudiences;
    this.campaigns = catalog.campaigns;
    for (let index = 0; index < init.testCount; index++) {
      const head = generateTestHead(this.context, index);
      this.entries.set(head.id, {
        id: head.id,
        index,
        status: head.status,
        createdAt: head.times.createdAt,
        campaignId: head.campaign?.id ?? null,
        test: null,
      });
    }
    this.results = createResultsCache(init.seed);
    this.createdIds = createRandom(hashSeed(init.seed, 'created-ids'));
  }

  private orderedEntries(): Entry[] {
    this.ordered ??= [...this.entries.values()].sort(byListingOrder);
    return this.ordered;
  }

  /** The entry's test, built on first read, with its campaign's current name. */
  private read(entry: Entry): Test {
    entry.test ??= generateTest(this.context, entry.index);
    return this.withCampaignName(entry.test);
  }

  /** Ids in listing order, optionally of one status. */
  listIds(status?: string): string[] {
    const entries = this.orderedEntries();
    return (
      status === undefined ? entries : entries.filter((entry) => entry.status === status)
    ).map((entry) => entry.id);
  }

  /** One page of the listing, plus how many tests the listing holds. Records are the store's own: do not mutate. */
  page(
    status: string | undefined,
    start: number,
    count: number,
  ): { tests: Test[]; totalCount: number } {
    const entries = this.orderedEntries();
    const matching =
      status === undefined ? entries : entries.filter((entry) => entry.status === status);
    return {
      tests: matching.slice(start, start + count).map((entry) => this.read(entry)),
      totalCount: matching.length,
    };
  }

  /** Every test, built, in listing order (ground truth for tests; slow on a huge store). */
  allTests(): Test[] {
    return this.orderedEntries().map((entry) => this.read(entry));
  }

  getTest(id: string): Test | undefined {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : this.read(entry);
  }

  /** Stores a test under its id (PATCH, touches, additions); a new createdAt re-sorts the listing. */
  saveTest(test: Test): void {
    const createdAt = Date.parse(test.createdAt) || 0;
    const update = { status: test.status, createdAt, campaignId: test.campaign?.id ?? null, test };
    const entry = this.entries.get(test.id);
    if (entry === undefined) {
      this.entries.set(test.id, { id: test.id, index: -1, ...update });
      this.ordered = null;
      return;
    }
    // Updated in place: the cached listing holds the same entry objects.
    if (entry.createdAt !== createdAt) this.ordered = null;
    Object.assign(entry, update);
  }

  addDraft(now: number): Test {
    const test = generateDraft(this.context, this.nextDraftIndex++, now);
    this.saveTest(test);
    return test;
  }

  removeTest(id: string): boolean {
    const removed = this.entries.delete(id);
    if (removed) this.ordered = null;
    return removed;
  }

  resultsOf(test: Test, now: number): TestResults | null {
    return this.results.get(test, now, this.mismatches.get(test.id) ?? 0);
  }

  plantMismatch(id: string, variantLoss: number): void {
    this.mismatches.set(id, variantLoss);
  }

  newId(): string {
    return this.createdIds.uuid();
  }

  hasTagNamed(name: string): boolean {
    const wanted = name.toLowerCase();
    return this.tags.some((tag) => tag.name.toLowerCase() === wanted);
  }

  /** Saves a campaign; tests embedding it show the new name, without their `updatedAt` moving. */
  saveCampaign(campaign: CampaignRecord): void {
    const index = this.campaigns.findIndex((each) => each.id === campaign.id);
    if (index >= 0) this.campaigns[index] = campaign;
  }

  /** A test embeds its campaign as `{ id, name }`, with the campaign's current name. */
  private withCampaignName(test: Test): Test {
    if (test.campaign === null) return test;
    const name = this.campaigns.find((campaign) => campaign.id === test.campaign?.id)?.name;
    return name === undefined || name === test.campaign.name
      ? test
      : { ...test, campaign: { ...test.campaign, name } };
  }

  /** Campaigns with their progress counted from the store's tests. */
  campaignsWithProgress(): Campaign[] {
    const progress = new Map<string, CampaignProgress>();
    for (const entry of this.entries.values()) {
      if (entry.campaignId === null) continue;
      const counts = progress.get(entry.campaignId) ?? {
        total: 0,
        live: 0,
        paused: 0,
        draft: 0,
        ended: 0,
      };
      counts.total += 1;
      if (entry.status === 'active') counts.live += 1;
      else if (isLive(entry.status)) counts.paused += 1;
      else if (isEnded(entry.status)) counts.ended += 1;
      else counts.draft += 1;
      progress.set(entry.campaignId, counts);
    }
    return this.campaigns.map((campaign) => ({
      ...campaign,
      progress: progress.get(campaign.id) ?? { total: 0, live: 0, paused: 0, draft: 0, ended: 0 },
    }));
  }
}
