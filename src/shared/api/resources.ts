// zod schemas of the API's resources: the single source of their types.
// Objects are "loose": fields the spec does not name are kept, never dropped.
import { z } from 'zod';
import { DateTime, Int32, Opaque, Uuid, openEnum } from './common';

export const TEST_STATUSES = [
  'draft',
  'scheduled',
  'active',
  'paused',
  'suspended',
  'incompatible',
  'cancelled',
  'completed',
] as const;
export const TestStatus = openEnum(TEST_STATUSES);
export type TestStatus = z.infer<typeof TestStatus>;

/** `stage`: the spec shows only `idea`; other values are kept as sent. */
export const TestStage = openEnum(['idea']);

export const Rule = z.looseObject({
  dimension: z.string(),
  operator: z.string(),
  values: z.array(z.string()),
  selector: Opaque.nullable(),
});
export type Rule = z.infer<typeof Rule>;

export const CustomAudience = z.looseObject({
  id: Uuid,
  name: z.string(),
  rules: z.array(Rule),
});
export type CustomAudience = z.infer<typeof CustomAudience>;

export const DEFAULT_AUDIENCE_DIMENSIONS = ['channel', 'referer', 'country'] as const;

export const DefaultAudience = z.looseObject({
  id: Uuid,
  name: z.string(),
  dimension: openEnum(DEFAULT_AUDIENCE_DIMENSIONS),
  operator: z.string(),
  value: z.string(),
});
export type DefaultAudience = z.infer<typeof DefaultAudience>;

export const Tag = z.looseObject({
  id: Uuid,
  name: z.string(),
});
export type Tag = z.infer<typeof Tag>;

export const TestSide = z.looseObject({
  id: Uuid,
  type: z.string(),
  suffix: z.string(),
  themeId: z.int(),
  redirectUrl: Opaque.nullable(),
  screenshotUrl: Opaque.nullable(),
  title: Opaque.nullable(),
  traffic: z.int(),
});
export type TestSide = z.infer<typeof TestSide>;

/** The campaign embedded in a test: its shape is not shown by the spec, so only its usual keys are typed. */
export const TestCampaignRef = z.looseObject({
  id: z.string().optional(),
  name: z.string().nullable().optional(),
});
export type TestCampaignRef = z.infer<typeof TestCampaignRef>;

export const Test = z.looseObject({
  id: Uuid,
  title: z.string(),
  control: TestSide,
  variant: TestSide.nullable(),
  status: TestStatus,
  goal: z.string(),
  device: z.string(),
  visitorOption: z.string(),
  hypothesisDescription: z.string().nullable(),
  campaign: TestCampaignRef.nullable(),
  handle: z.string().nullable(),
  duration: z.number().nullable(),
  period: Int32,
  createdAt: DateTime,
  updatedAt: DateTime,
  startAt: z.string().nullable(),
  endAt: z.string().nullable(),
  appliedAt: z.string().nullable(),
  automaticallyStartAt: z.string().nullable(),
  automaticallyEndAt: z.string().nullable(),
  automaticallyPauseAt: z.string().nullable(),
  automaticallyResumeAt: z.string().nullable(),
  endWhenSignificant: z.boolean(),
  estimatedCompletionDate: z.string().nullable(),
  customAudiences: z.array(CustomAudience),
  defaultAudiences: z.array(DefaultAudience),
  stage: TestStage,
  tags: z.array(Tag),
  priority: z.string().nullable(),
  surfaceArea: z.string().nullable(),
  impact: z.int().nullable(),
  effort: z.int().nullable(),
  implemented: z.boolean().nullable(),
});
export type Test = z.infer<typeof Test>;

export const CampaignProgress = z.looseObject({
  total: z.int(),
  live: z.int(),
  paused: z.int(),
  draft: z.int(),
  ended: z.int(),
});
export type CampaignProgress = z.infer<typeof CampaignProgress>;

export const Campaign = z.looseObject({
  id: Uuid,
  name: z.string(),
  objective: z.string().nullable(),
  goal: z.string().nullable(),
  status: openEnum(['active']),
  createdAt: DateTime,
  progress: CampaignProgress,
});
export type Campaign = z.infer<typeof Campaign>;
