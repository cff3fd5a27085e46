// Records as the API sends them, valid by default, for tests that script the server's answers.
import { randomUUID } from 'node:crypto';

export function testRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: randomUUID(),
    title: 'Free shipping banner',
    control: side('control'),
    variant: side('variant'),
    status: 'active',
    goal: 'revenue',
    device: 'all',
    visitorOption: 'all',
    hypothesisDescription: null,
    campaign: null,
    handle: null,
    duration: null,
    period: 14,
    createdAt: '2026-01-02T03:04:05Z',
    updatedAt: '2026-01-03T03:04:05Z',
    startAt: null,
    endAt: null,
    appliedAt: null,
    automaticallyStartAt: null,
    automaticallyEndAt: null,
    automaticallyPauseAt: null,
    automaticallyResumeAt: null,
    endWhenSignificant: false,
    estimatedCompletionDate: null,
    customAudiences: [],
    defaultAudiences: [],
    stage: 'idea',
    tags: [],
    priority: null,
    surfaceArea: null,
    impact: null,
    effort: null,
    implemented: null,
    ...overrides,
  };
}

function side(type: string): Record<string, unknown> {
  return {
    id: randomUUID(),
    type,
    suffix: '',
    themeId: 1,
    redirectUrl: null,
    screenshotUrl: null,
    title: null,
    traffic: 50,
  };
}

export function listing(
  records: unknown[],
  page = 1,
  totalPages = 1,
  perPage = 100,
): Record<string, unknown> {
  return {
    data: records,
    pagination: { page, perPage, totalPages, totalCount: totalPages * perPage },
  };
}
