// PATCH /tests/{id}: which fields the test's status locks, which values are valid, and how each applies.
//
// Choices where the spec is silent:
// - A field the status locks (lockMessage) is refused with 422 `locked-field`, naming it in `detail` and
//   in the extension member `field`; locks are checked before values.
// - null clears a nullable field (hypothesis, priority, campaign, audiences, tags, ...); null for a field
//   a test cannot be without (title, goal, device, visitorOption, controlTraffic, endWhenSignificant) is 400.
// - goal, device, visitorOption, priority and surfaceArea take the values in vocabulary.ts/metrics.ts;
//   impact and effort 1..5; controlTraffic 0..100 (the variant gets the rest); ids must name records of
//   the store; anything else is 400.
// - `variant`: null removes it (control gets 100%); an object sets its title, type, redirectUrl,
//   screenshotUrl or themeId, creating a 50/50 variant when there was none.
import { z } from 'zod';
import {
  DateTime,
  type Test,
  type TestSide,
  type UpdateTestBody,
  type UpdateTestField,
} from '#shared/api/index';
import { lockMessage } from '#shared/domain/mutability';
import { GOALS } from './metrics';
import { createRandom, hashSeed } from './random';
import { badRequest, problem } from './responses';
import { nextUpdatedAt, type StoreState } from './store-state';
import { DEVICES, PRIORITIES, SURFACE_AREAS, VISITOR_OPTIONS } from './vocabulary';

const VariantUpdate = z.strictObject({
  title: z.string().nullable().optional(),
  type: z.string().min(1).optional(),
  redirectUrl: z.url().nullable().optional(),
  screenshotUrl: z.url().nullable().optional(),
  themeId: z.int().positive().optional(),
});

/** Applies one field to the draft, or says why the value is refused. */
type Applier<F extends UpdateTestField> = (
  draft: Test,
  value: NonNullable<UpdateTestBody[F]> | null,
  store: StoreState,
) => string | null;

function required<T>(field: string, apply: (draft: Test, value: T) => string | null) {
  return (draft: Test, value: T | null): string | null =>
    value === null ? `'${field}' cannot be null: a test always has one` : apply(draft, value);
}

/** Runs `set` when there is no error; returns the error either way. */
function setIfValid(error: string | null, set: () => void): string | null {
  if (error === null) set();
  return error;
}

function oneOf(field: string, allowed: readonly string[], value: string): string | null {
  return allowed.includes(value)
    ? null
    : `'${field}' must be one of ${allowed.map((v) => `'${v}'`).join(', ')}`;
}

function score(field: string, value: number | null): string | null {
  return value === null || (value >= 1 && value <= 5)
    ? null
    : `'${field}' must be an integer from 1 to 5, or null`;
}

function timestamp(field: string, value: string | null): string | null {
  return value === null || DateTime.safeParse(value).success
    ? null
    : `'${field}' must be an ISO 8601 date-time with offset, or null`;
}

/** The records of `pool` named by `ids` (duplicates dropped), or the ids no record has. */
function resolveIds<T extends { id: string }>(
  pool: readonly T[],
  ids: readonly string[],
): { found: T[]; unknown: string[] } {
  const unique = [...new Set(ids)];
  const found = unique.flatMap((id) => pool.filter((item) => item.id === id));
  return {
    found: structuredClone(found),
    unknown: unique.filter((id) => !pool.some((item) => item.id === id)),
  };
}

type Appliers = { [F in UpdateTestField]: Applier<F> };

const APPLIERS: Appliers = {
  title: required('title', (draft, value: string) => {
    if (value.trim() === '') return "'title' must not be empty";
    draft.title = value;
    return null;
  }),
  hypothesisDescription: (draft, value) => {
    draft.hypothesisDescription = value;
    return null;
  },
  controlTitle: (draft, value) => {
    draft.control = { ...draft.control, title: value };
    return null;
  },
  variantTitle: (draft, value) => {
    if (draft.variant === null) return "'variantTitle' cannot be set: the test has no variant";
    draft.variant = { ...draft.variant, title: value };
    return null;
  },
  goal: required('goal', (draft, value: string) =>
    setIfValid(oneOf('goal', GOALS, value), () => {
      draft.goal = value;
    }),
  ),
  device: required('device', (draft, value: string) =>
    setIfValid(oneOf('device', DEVICES, value), () => {
      draft.device = value;
    }),
  ),
  visitorOption: required('visitorOption', (draft, value: string) =>
    setIfValid(oneOf('visitorOption', VISITOR_OPTIONS, value), () => {
      draft.visitorOption = value;
    }),
  ),
  controlTraffic: required('controlTraffic', (draft, value: number) => {
    if (value < 0 || value > 100) return "'controlTraffic' must be an integer from 0 to 100";
    if (draft.variant === null && value !== 100)
      return "'controlTraffic' must be 100: the test has no variant";
    draft.control = { ...draft.control, traffic: value };
    if (draft.variant !== null) draft.variant = { ...draft.variant, traffic: 100 - value };
    return null;
  }),
  defaultAudiences: (draft, value, store) => {
    const { found, unknown } = resolveIds(store.defaultAudiences, value ?? []);
    if (unknown.length > 0) return `Unknown default audience id(s): ${unknown.join(', ')}`;
    draft.defaultAudiences = found;
    return null;
  },
  customAudienceIds: (draft, value, store) => {
    const { found, unknown } = resolveIds(store.customAudiences, value ?? []);
    if (unknown.length > 0) return `Unknown custom audience id(s): ${unknown.join(', ')}`;
    draft.customAudiences = found;
    return null;
  },
  campaignId: (draft, value, store) => {
    if (value === null) {
      draft.campaign = null;
      return null;
    }
    const campaign = store.campaigns.find((each) => each.id === value);
    if (campaign === undefined) return `Unknown campaign id: ${value}`;
    draft.campaign = { id: campaign.id, name: campaign.name };
    return null;
  },
  variant: (draft, value) => {
    if (value === null) {
      draft.variant = null;
      draft.control = { ...draft.control, traffic: 100 };
      return null;
    }
    const parsed = VariantUpdate.safeParse(value);
    if (!parsed.success) return `'variant': ${z.prettifyError(parsed.error)}`;
    const base: TestSide = draft.variant ?? newVariant(draft);
    if (draft.variant === null) draft.control = { ...draft.control, traffic: 100 - base.traffic };
    const changes = Object.fromEntries(
      Object.entries(parsed.data).filter(([, v]) => v !== undefined),
    );
    draft.variant = { ...base, ...changes };
    return null;
  },
  automaticallyStartAt: (draft, value) =>
    setIfValid(timestamp('automaticallyStartAt', value), () => {
      draft.automaticallyStartAt = value;
    }),
  automaticallyEndAt: (draft, value) =>
    setIfValid(timestamp('automaticallyEndAt', value), () => {
      draft.automaticallyEndAt = value;
    }),
  endWhenSignificant: required('endWhenSignificant', (draft, value: boolean) => {
    draft.endWhenSignificant = value;
    return null;
  }),
  priority: (draft, value) =>
    setIfValid(value === null ? null : oneOf('priority', PRIORITIES, value), () => {
      draft.priority = value;
    }),
  surfaceArea: (draft, value) =>
    setIfValid(value === null ? null : oneOf('surfaceArea', SURFACE_AREAS, value), () => {
      draft.surfaceArea = value;
    }),
  impact: (draft, value) =>
    setIfValid(score('impact', value), () => {
      draft.impact = value;
    }),
  effort: (draft, value) =>
    setIfValid(score('effort', value), () => {
      draft.effort = value;
    }),
  implemented: (draft, value) => {
    draft.implemented = value;
    return null;
  },
  tagIds: (draft, value, store) => {
    const { found, unknown } = resolveIds(store.tags, value ?? []);
    if (unknown.length > 0) return `Unknown tag id(s): ${unknown.join(', ')}`;
    draft.tags = found;
    return null;
  },
};

/** A fresh 50/50 variant for a draft that had none; its id is derived from the test, so runs repeat. */
function newVariant(test: Test): TestSide {
  const random = createRandom(hashSeed('new-variant', test.id, test.updatedAt));
  return {
    id: random.uuid(),
    type: 'theme',
    suffix: 'b',
    themeId: test.control.themeId,
    redirectUrl: null,
    screenshotUrl: null,
    title: null,
    traffic: 50,
  };
}

function applyField<F extends UpdateTestField>(
  field: F,
  body: UpdateTestBody,
  draft: Test,
  store: StoreState,
): string | null {
  const apply: Appliers[F] = APPLIERS[field];
  return apply(draft, body[field] ?? null, store);
}

export type UpdateOutcome = { ok: true; test: Test } | { ok: false; response: Response };

/** Validates `body` against the test's locks and the store's records; returns the updated copy. */
export function updateTest(
  store: StoreState,
  test: Test,
  body: UpdateTestBody,
  now: number,
): UpdateOutcome {
  // The strict schema guarantees every key is a known field.
  const fields = (Object.keys(body) as UpdateTestField[]).filter(
    (field) => body[field] !== undefined,
  );
  for (const field of fields) {
    const reason = lockMessage(field, test.status);
    if (reason !== null) {
      return {
        ok: false,
        response: problem(422, 'locked-field', 'Field is locked', reason, { members: { field } }),
      };
    }
  }
  const draft = structuredClone(test);
  for (const field of fields) {
    const error = applyField(field, body, draft, store);
    if (error !== null) return { ok: false, response: badRequest(error, { field }) };
  }
  draft.updatedAt = nextUpdatedAt(test.updatedAt, now);
  return { ok: true, test: draft };
}
