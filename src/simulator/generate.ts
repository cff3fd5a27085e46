// Seeded generation of a store's records: tags, audiences, campaigns and tests.
// Every test has its own random stream (store seed + index), so the first N tests are the same whatever
// the store's size, and a test can be generated in two steps: its head (id, status, dates, campaign:
// what listing order, filters and campaign progress need) for all tests at once, the full record only
// when it is first read. A store of 20,000 tests is ready in milliseconds.
//
// Dates are relative to `anchor`, the start (UTC midnight) of the day the simulator was created: every
// generated past timestamp lies before it, so the same seed and the same day give the same data.
// Field choices where the spec is silent: `duration` is the planned run length in days (null: until
// significant), `period` the reporting window in days; nullable timestamps are ISO 8601 UTC with `Z`.
import {
  Campaign,
  type CustomAudience,
  type DefaultAudience,
  type Tag,
  type Test,
  type TestSide,
  type TestStatus,
} from '#shared/api/index';
import { isEnded, isLaunched, isLive } from '#shared/domain/lifecycle';
import type { z } from 'zod';
import { GOALS, type Goal } from './metrics';
import { createRandom, hashSeed, type Random } from './random';
import {
  CAMPAIGN_NAMES,
  CAMPAIGN_OBJECTIVES,
  CAMPAIGN_STATUSES,
  CUSTOM_AUDIENCES,
  DEFAULT_AUDIENCES,
  FEATURES,
  HANDLES,
  PLACEMENTS,
  PRIORITIES,
  REASONS,
  STATUS_WEIGHTS,
  SURFACE_AREAS,
  TAG_NAMES,
  TITLE_SUFFIXES,
  TRAFFIC_SPLITS,
  VARIANT_TYPES,
} from './vocabulary';

export const DAY_MS = 86_400_000;

/** A campaign as the store keeps it: its `progress` is counted from the tests when it is served. */
export const CampaignRecord = Campaign.omit({ progress: true });
export type CampaignRecord = z.infer<typeof CampaignRecord>;

export type StoreCatalog = {
  themeId: number;
  domain: string;
  tags: Tag[];
  customAudiences: CustomAudience[];
  defaultAudiences: DefaultAudience[];
  campaigns: CampaignRecord[];
};

/** What test generation needs to know about its store. */
export type GenerationContext = { seed: number; anchor: number; catalog: StoreCatalog };

/** 'YYYY-MM-DDT' per day number: formatting dates is the costliest part of generating 20,000 tests. */
const datePrefixes = new Map<number, string>();
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/** ISO 8601 in UTC with milliseconds and `Z`, as Date#toISOString writes it, only faster. */
export function iso(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let prefix = datePrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    datePrefixes.set(day, prefix);
  }
  const inDay = ms - day * DAY_MS;
  const hours = TWO_DIGITS[Math.floor(inDay / 3_600_000)] ?? '00';
  const minutes = TWO_DIGITS[Math.floor(inDay / 60_000) % 60] ?? '00';
  const seconds = TWO_DIGITS[Math.floor(inDay / 1000) % 60] ?? '00';
  const millis = String(Math.floor(inDay % 1000)).padStart(3, '0');
  return `${prefix}${hours}:${minutes}:${seconds}.${millis}Z`;
}

/** Start (UTC midnight) of the day that contains `ms`. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export function generateCatalog(seed: number, storeName: string, anchor: number): StoreCatalog {
  const rng = createRandom(hashSeed(seed, 'catalog'));
  const campaigns = rng
    .sample(CAMPAIGN_NAMES, rng.int(5, CAMPAIGN_NAMES.length))
    .map((name, index): CampaignRecord => ({
      id: rng.uuid(),
      name,
      objective: rng.chance(0.7) ? rng.pick(CAMPAIGN_OBJECTIVES) : null,
      goal: rng.chance(0.6) ? rng.pick(GOALS) : null,
      // At least one active and one ended campaign, so the active list is always a real filter.
      status: index === 0 ? 'active' : index === 1 ? 'ended' : rng.pick(CAMPAIGN_STATUSES),
      createdAt: iso(anchor - rng.int(30, 400) * DAY_MS + rng.int(0, 86_399) * 1000),
    }));
  return {
    themeId: 120_000_000_000 + rng.int(0, 9_999_999),
    domain: `${slug(storeName)}.example`,
    tags: rng.sample(TAG_NAMES, rng.int(8, 12)).map((name) => ({ id: rng.uuid(), name })),
    customAudiences: rng
      .sample(CUSTOM_AUDIENCES, rng.int(4, 6))
      .map((audience) => copyAudience({ id: rng.uuid(), ...audience })),
    defaultAudiences: DEFAULT_AUDIENCES.map((audience) => ({ id: rng.uuid(), ...audience })),
    campaigns,
  };
}

/** A deep copy by hand: structuredClone is the slowest part of generating 20,000 tests. */
function copyAudience(audience: CustomAudience): CustomAudience {
  return {
    ...audience,
    rules: audience.rules.map((rule) => ({ ...rule, values: [...rule.values] })),
  };
}

type Timeline = {
  createdAt: number;
  updatedAt: number;
  startAt: number | null;
  endAt: number | null;
  automaticallyStartAt: number | null;
};

/** When a test with this status was created, started, ended and last touched; all before `anchor`. */
function timelineOf(rng: Random, status: TestStatus, anchor: number): Timeline {
  const timeOfDay = () => rng.int(0, 86_399) * 1000;
  const between = (from: number, to: number) =>
    wholeSeconds(from + rng.next() * Math.max(0, to - from));
  if (isLive(status)) {
    const startAt = anchor - rng.int(1, 45) * DAY_MS + timeOfDay();
    const createdAt = startAt - rng.int(1, 20) * DAY_MS - timeOfDay();
    return {
      createdAt,
      startAt,
      endAt: null,
      updatedAt: between(startAt, anchor - 1000),
      automaticallyStartAt: null,
    };
  }
  if (isEnded(status)) {
    const startAt = anchor - rng.int(15, 700) * DAY_MS + timeOfDay();
    const plannedDays = status === 'completed' ? rng.int(14, 60) : rng.int(1, 20);
    const daysAvailable = Math.floor((anchor - startAt) / DAY_MS) - 1;
    const endAt = startAt + Math.min(plannedDays, daysAvailable) * DAY_MS;
    const createdAt = startAt - rng.int(1, 30) * DAY_MS - timeOfDay();
    return {
      createdAt,
      startAt,
      endAt,
      updatedAt: between(endAt, Math.min(endAt + 2 * DAY_MS, anchor - 1000)),
      automaticallyStartAt: null,
    };
  }
  const createdAt = anchor - rng.int(1, status === 'scheduled' ? 30 : 200) * DAY_MS + timeOfDay();
  return {
    createdAt,
    startAt: null,
    endAt: null,
    updatedAt: between(createdAt, anchor - 1000),
    automaticallyStartAt:
      status === 'scheduled' ? anchor + rng.int(1, 14) * DAY_MS + timeOfDay() : null,
  };
}

function stageOf(rng: Random, status: TestStatus): string {
  if (isLive(status)) return 'running';
  if (status === 'completed') return rng.chance(0.2) ? 'analysis' : 'done';
  if (status === 'cancelled') return 'done';
  if (status === 'scheduled') return 'planned';
  return rng.chance(0.6) ? 'idea' : 'planned';
}

function sideOf(
  rng: Random,
  catalog: StoreCatalog,
  role: 'control' | 'variant',
  title: string,
  traffic: number,
): TestSide {
  const id = rng.uuid();
  const type = role === 'control' ? 'control' : rng.pick(VARIANT_TYPES);
  return {
    id,
    type,
    suffix: role === 'control' ? 'a' : 'b',
    themeId: type === 'theme' ? catalog.themeId + rng.int(1, 40) : catalog.themeId,
    redirectUrl:
      type === 'redirect' ? `https://${catalog.domain}/${rng.pick(HANDLES)}?variant=b` : null,
    screenshotUrl: rng.chance(0.5) ? `https://screenshots.${catalog.domain}/${id}.png` : null,
    title,
    traffic,
  };
}

function maybe<T>(rng: Random, probability: number, value: () => T): T | null {
  return rng.chance(probability) ? value() : null;
}

/** The first draws of a test's stream: enough to order, filter and count it without building it. */
export type TestHead = {
  index: number;
  id: string;
  status: TestStatus;
  times: Timeline;
  campaign: CampaignRecord | null;
};

function headOf(rng: Random, context: GenerationContext, index: number): TestHead {
  const id = rng.uuid();
  const status = rng.weighted(STATUS_WEIGHTS);
  const times = timelineOf(rng, status, context.anchor);
  const campaign = maybe(rng, 0.45, () => rng.pick(context.catalog.campaigns));
  return { index, id, status, times, campaign };
}

const testStream = (context: GenerationContext, index: number) =>
  createRandom(hashSeed(context.seed, 'test', index));

/** The head of the test at `index` of a store, its status drawn from the realistic mix. */
export function generateTestHead(context: GenerationContext, index: number): TestHead {
  return headOf(testStream(context, index), context, index);
}

/** The full test at `index`: the same stream again, read past its head. */
export function generateTest(context: GenerationContext, index: number): Test {
  const rng = testStream(context, index);
  return buildTest(rng, context, headOf(rng, context, index));
}

// How often each value occurs in generated tests.
const GOAL_WEIGHTS: readonly (readonly [Goal, number])[] = [
  ['conversion-rate', 40],
  ['revenue-per-visitor', 25],
  ['average-order-value', 10],
  ['add-to-cart-rate', 15],
  ['click-through-rate', 10],
];
const DEVICE_WEIGHTS: readonly (readonly [string, number])[] = [
  ['all', 70],
  ['mobile', 20],
  ['desktop', 10],
];
const VISITOR_OPTION_WEIGHTS: readonly (readonly [string, number])[] = [
  ['all', 80],
  ['new', 12],
  ['returning', 8],
];
const IMPLEMENTED_WEIGHTS: readonly (readonly [boolean | null, number])[] = [
  [true, 40],
  [false, 40],
  [null, 20],
];
const DURATION_WEIGHTS: readonly (readonly [number | null, number])[] = [
  [14, 3],
  [21, 2],
  [28, 3],
  [30, 2],
  [null, 3],
];
const PERIODS = [7, 14, 30] as const;

/** Builds the rest of a test; the head's status and times decide everything date- and lifecycle-related. */
function buildTest(rng: Random, context: GenerationContext, head: TestHead): Test {
  const { catalog, anchor } = context;
  const { status, times, campaign } = head;
  const feature = rng.pick(FEATURES);
  const placement = rng.pick(PLACEMENTS);
  const title = [feature, placement].filter(Boolean).join(' ') + rng.pick(TITLE_SUFFIXES);
  const goal = rng.weighted(GOAL_WEIGHTS);
  // Launched tests always have a variant (results compare two sides); some drafts have none yet.
  const hasVariant = isLaunched(status) || rng.chance(0.8);
  const controlTraffic = hasVariant ? rng.weighted(TRAFFIC_SPLITS) : 100;
  const control = sideOf(rng, catalog, 'control', 'Original', controlTraffic);
  const variant = hasVariant
    ? sideOf(rng, catalog, 'variant', `With ${feature.toLowerCase()}`, 100 - controlTraffic)
    : null;
  const implemented = isEnded(status) ? rng.weighted(IMPLEMENTED_WEIGHTS) : null;
  const appliedAt =
    implemented === true && times.endAt !== null
      ? Math.min(times.endAt + rng.int(1, 5) * DAY_MS, anchor - 1000)
      : null;
  const inFuture = (minDays: number, maxDays: number) =>
    iso(anchor + rng.int(minDays, maxDays) * DAY_MS + rng.int(0, 23) * 3_600_000);
  const automaticallyEndAt =
    times.automaticallyStartAt !== null
      ? maybe(rng, 0.4, () => iso((times.automaticallyStartAt ?? anchor) + 21 * DAY_MS))
      : status === 'active'
        ? maybe(rng, 0.25, () => inFuture(3, 30))
        : null;

  return {
    id: head.id,
    title,
    control,
    variant,
    status,
    goal,
    device: rng.weighted(DEVICE_WEIGHTS),
    visitorOption: rng.weighted(VISITOR_OPTION_WEIGHTS),
    hypothesisDescription: maybe(
      rng,
      0.75,
      () =>
        `If we add ${feature.toLowerCase()} ${placement || 'across the store'}, more visitors will buy, because ${rng.pick(REASONS)}.`,
    ),
    campaign: campaign === null ? null : { id: campaign.id, name: campaign.name },
    handle: maybe(rng, 0.6, () => rng.pick(HANDLES)),
    duration: rng.weighted(DURATION_WEIGHTS),
    period: rng.pick(PERIODS),
    createdAt: iso(times.createdAt),
    updatedAt: iso(Math.max(times.updatedAt, appliedAt ?? 0)),
    startAt: times.startAt === null ? null : iso(times.startAt),
    endAt: times.endAt === null ? null : iso(times.endAt),
    appliedAt: appliedAt === null ? null : iso(appliedAt),
    automaticallyStartAt:
      times.automaticallyStartAt === null ? null : iso(times.automaticallyStartAt),
    automaticallyEndAt,
    automaticallyPauseAt: status === 'active' ? maybe(rng, 0.05, () => inFuture(2, 10)) : null,
    automaticallyResumeAt: status === 'paused' ? maybe(rng, 0.3, () => inFuture(1, 7)) : null,
    endWhenSignificant: rng.chance(0.35),
    estimatedCompletionDate: status === 'active' ? maybe(rng, 0.6, () => inFuture(2, 30)) : null,
    customAudiences: rng.chance(0.3)
      ? rng.sample(catalog.customAudiences, rng.int(1, 2)).map(copyAudience)
      : [],
    defaultAudiences: rng.chance(0.25)
      ? rng.sample(catalog.defaultAudiences, rng.int(1, 2)).map((each) => ({ ...each }))
      : [],
    stage: stageOf(rng, status),
    tags: rng.chance(0.7) ? rng.sample(catalog.tags, rng.int(1, 3)).map((tag) => ({ ...tag })) : [],
    priority: maybe(rng, 0.7, () => rng.pick(PRIORITIES)),
    surfaceArea: maybe(rng, 0.7, () => rng.pick(SURFACE_AREAS)),
    impact: maybe(rng, 0.6, () => rng.int(1, 5)),
    effort: maybe(rng, 0.6, () => rng.int(1, 5)),
    implemented,
  };
}

/** A new draft created at `now`, as a test added to the store while the app watches. */
export function generateDraft(context: GenerationContext, index: number, now: number): Test {
  const rng = createRandom(hashSeed(context.seed, 'draft', index));
  const at = wholeSeconds(now);
  const times = {
    createdAt: at,
    updatedAt: at,
    startAt: null,
    endAt: null,
    automaticallyStartAt: null,
  };
  const head = {
    index,
    id: rng.uuid(),
    status: 'draft',
    times,
    campaign: maybe(rng, 0.45, () => rng.pick(context.catalog.campaigns)),
  };
  return buildTest(rng, context, head);
}
