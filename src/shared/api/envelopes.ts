// zod schemas of the API's response envelopes, request bodies and problem details.
import { z } from 'zod';
import { Int32, Uuid } from './common';
import { Rule, TestStatus } from './resources';

export const Pagination = z.looseObject({
  page: Int32,
  perPage: Int32,
  totalPages: Int32,
  totalCount: Int32,
});
export type Pagination = z.infer<typeof Pagination>;

/**
 * The list envelope keeps each record unparsed: the client validates records one by one
 * so that one bad record is set aside instead of failing its whole page.
 */
export const TestListResponse = z.looseObject({
  data: z.array(z.unknown()),
  pagination: Pagination,
});
export type TestListResponse = z.infer<typeof TestListResponse>;

export const TestListQuery = z.object({
  status: TestStatus.optional(),
  page: Int32.optional(),
  perPage: Int32.optional(),
});
export type TestListQuery = z.infer<typeof TestListQuery>;

export const CustomAudienceListResponse = z.looseObject({
  customAudiences: z.array(z.unknown()),
});

export const ActiveCampaignsResponse = z.looseObject({
  campaigns: z.array(z.unknown()),
});

export const CreatedTagResponse = z.looseObject({ id: Uuid });
export type CreatedTagResponse = z.infer<typeof CreatedTagResponse>;

/** Body of PATCH /tests/{id}: every field optional and nullable; unknown fields are refused. */
export const UpdateTestBody = z.strictObject({
  title: z.string().nullable().optional(),
  hypothesisDescription: z.string().nullable().optional(),
  controlTitle: z.string().nullable().optional(),
  variantTitle: z.string().nullable().optional(),
  goal: z.string().nullable().optional(),
  device: z.string().nullable().optional(),
  visitorOption: z.string().nullable().optional(),
  controlTraffic: z.int().nullable().optional(),
  defaultAudiences: z.array(z.string()).nullable().optional(),
  customAudienceIds: z.array(Uuid).nullable().optional(),
  campaignId: z.string().nullable().optional(),
  variant: z.unknown().optional(),
  automaticallyStartAt: z.string().nullable().optional(),
  automaticallyEndAt: z.string().nullable().optional(),
  endWhenSignificant: z.boolean().nullable().optional(),
  priority: z.string().nullable().optional(),
  surfaceArea: z.string().nullable().optional(),
  impact: z.int().nullable().optional(),
  effort: z.int().nullable().optional(),
  implemented: z.boolean().nullable().optional(),
  tagIds: z.array(Uuid).nullable().optional(),
});
export type UpdateTestBody = z.infer<typeof UpdateTestBody>;
export type UpdateTestField = keyof UpdateTestBody;

export const CreateCustomAudienceBody = z.strictObject({
  name: z.string().min(1),
  rules: z.array(Rule).optional(),
});
export type CreateCustomAudienceBody = z.infer<typeof CreateCustomAudienceBody>;

export const UpdateCampaignBody = z.strictObject({
  name: z.string().min(1).nullable().optional(),
  objective: z.string().nullable().optional(),
  goal: z.string().nullable().optional(),
});
export type UpdateCampaignBody = z.infer<typeof UpdateCampaignBody>;

export const CreateTagBody = z.strictObject({
  name: z.string().min(1),
});
export type CreateTagBody = z.infer<typeof CreateTagBody>;

/** RFC 9457 problem details, as the API sends them: every field nullable. */
export const ProblemDetails = z.looseObject({
  type: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  status: z.int().nullable().optional(),
  detail: z.string().nullable().optional(),
  instance: z.string().nullable().optional(),
});
export type ProblemDetails = z.infer<typeof ProblemDetails>;
