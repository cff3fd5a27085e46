// The one description of each test field Splitbook edits: its name, label, type, when it locks and why,
// how it is edited, read from a test and applied to the local copy, and what its ids name in Pending.
// The mutability rules, the Edit tab, the CLI's edit, the local copy and Pending's words derive from it.
import {
  UpdateTestBody,
  type CustomAudience,
  type DefaultAudience,
  type Tag,
  type Test,
  type TestStatus,
  type UpdateTestField,
} from '../api';
import type { TextLimit } from './input-rules';
import { isEnded, isLaunched } from './lifecycle';

/** When a field stops being editable (the spec's mutability table), with the words the user reads. */
export const FIELD_LOCKS = {
  /** Locked once the test has left draft/scheduled. */
  afterLaunch: {
    locked: (status: TestStatus) => isLaunched(status),
    /** Beside the locked control. */
    reason: 'locked after launch',
    /** In a refusal: `'goal' is locked after launch (status: active)`. */
    says: 'is locked after launch',
  },
  /** Editable only once the test has ended. */
  untilEnded: {
    locked: (status: TestStatus) => !isEnded(status),
    reason: 'only after the test has ended',
    says: 'can be set only after the test has ended',
  },
} as const;
export type FieldLock = keyof typeof FIELD_LOCKS;
export type LockReason = (typeof FIELD_LOCKS)[FieldLock]['reason'];

/**
 * How a field is edited: the Edit tab's control, and how the CLI reads a typed value (text; a whole
 * number; true/false; a date and time; a comma-separated list of ids).
 */
export type FieldInput =
  | 'text'
  | 'long-text'
  | 'integer'
  | 'checkbox'
  | 'yes-no-unset'
  | 'date-time'
  | 'tags'
  | 'custom-audiences'
  | 'default-audiences'
  | 'campaign';

/** The records a field's ids name: Pending and the Edit tab show their names. */
export type FieldNames = 'tag' | 'custom-audience' | 'default-audience' | 'campaign';

/** The look-ups applying a change needs: what the cache knows of the records ids name. */
export interface RecordLookups {
  campaignName(id: string): string | null;
  tag(id: string): Tag | null;
  audience(id: string): CustomAudience | null;
  defaultAudience(id: string): DefaultAudience | null;
}

interface FieldSpec {
  label: string;
  /** When it locks; null: never. */
  lock: FieldLock | null;
  input: FieldInput;
  /** A test cannot be without it: null is refused locally (the API's simulator does the same). */
  required?: true;
  /** Bounds of a number, shown by its control and checked before an edit is queued. */
  range?: { min: number; max: number };
  /** The longest text it may hold (input-rules.ts), checked before an edit is queued. */
  limit?: TextLimit;
  /** Words beside the control. */
  hint?: string;
  /** Values the API does not enumerate: the form offers those the cache has seen. */
  suggest?: 'goals' | 'devices';
  /** What its ids name. */
  names?: FieldNames;
  /** Its value is a list of ids: two values compare as sets. */
  list?: true;
  /** Its value as the test record shows it (ids for references), as PATCH would send it. */
  read(test: Test): unknown;
  /** Sets it on a copy of the test (the local copy under pending edits); a value of another type clears or is ignored as before. */
  apply(test: Test, value: unknown, lookups: RecordLookups): void;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const ids = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * Every test field Splitbook edits, in the Edit tab's order. `variant` (an object whose shape the spec
 * does not show) is left out: Splitbook edits the variant's title through `variantTitle` and its share
 * through `controlTraffic`.
 */
const SPECS = {
  title: {
    label: 'Title',
    lock: null,
    input: 'text',
    limit: 'title',
    required: true,
    read: (test) => test.title,
    apply: (test, value) => {
      if (typeof value === 'string') test.title = value;
    },
  },
  hypothesisDescription: {
    label: 'Hypothesis',
    lock: null,
    input: 'long-text',
    limit: 'longText',
    read: (test) => test.hypothesisDescription ?? null,
    apply: (test, value) => {
      test.hypothesisDescription = text(value);
    },
  },
  controlTitle: {
    label: 'Control title',
    lock: null,
    input: 'text',
    limit: 'title',
    read: (test) => test.control.title ?? null,
    apply: (test, value) => {
      test.control = { ...test.control, title: value ?? null };
    },
  },
  variantTitle: {
    label: 'Variant title',
    lock: null,
    input: 'text',
    limit: 'title',
    read: (test) => test.variant?.title ?? null,
    apply: (test, value) => {
      if (test.variant) test.variant = { ...test.variant, title: value ?? null };
    },
  },
  priority: {
    label: 'Priority',
    lock: null,
    input: 'text',
    limit: 'short',
    read: (test) => test.priority ?? null,
    apply: (test, value) => {
      test.priority = text(value);
    },
  },
  surfaceArea: {
    label: 'Surface area',
    lock: null,
    input: 'text',
    limit: 'short',
    read: (test) => test.surfaceArea ?? null,
    apply: (test, value) => {
      test.surfaceArea = text(value);
    },
  },
  impact: {
    label: 'Impact',
    lock: null,
    input: 'integer',
    read: (test) => test.impact ?? null,
    apply: (test, value) => {
      test.impact = typeof value === 'number' ? value : null;
    },
  },
  effort: {
    label: 'Effort',
    lock: null,
    input: 'integer',
    read: (test) => test.effort ?? null,
    apply: (test, value) => {
      test.effort = typeof value === 'number' ? value : null;
    },
  },
  tagIds: {
    label: 'Tags',
    lock: null,
    input: 'tags',
    names: 'tag',
    list: true,
    read: (test) => test.tags.map((t) => t.id),
    apply: (test, value, lookups) => {
      test.tags = ids(value).map(
        (id) =>
          lookups.tag(id) ?? test.tags.find((t) => t.id === id) ?? { id, name: '(unknown tag)' },
      );
    },
  },
  implemented: {
    label: 'Implemented',
    lock: 'untilEnded',
    input: 'yes-no-unset',
    read: (test) => test.implemented ?? null,
    apply: (test, value) => {
      test.implemented = typeof value === 'boolean' ? value : null;
    },
  },
  goal: {
    label: 'Goal',
    lock: 'afterLaunch',
    input: 'text',
    limit: 'short',
    required: true,
    suggest: 'goals',
    read: (test) => test.goal,
    apply: (test, value) => {
      if (typeof value === 'string') test.goal = value;
    },
  },
  device: {
    label: 'Device',
    lock: 'afterLaunch',
    input: 'text',
    limit: 'short',
    required: true,
    suggest: 'devices',
    read: (test) => test.device,
    apply: (test, value) => {
      if (typeof value === 'string') test.device = value;
    },
  },
  visitorOption: {
    label: 'Visitors',
    lock: 'afterLaunch',
    input: 'text',
    limit: 'short',
    required: true,
    read: (test) => test.visitorOption,
    apply: (test, value) => {
      if (typeof value === 'string') test.visitorOption = value;
    },
  },
  controlTraffic: {
    label: 'Control traffic',
    lock: 'afterLaunch',
    input: 'integer',
    required: true,
    range: { min: 0, max: 100 },
    hint: '% of visitors',
    read: (test) => test.control.traffic,
    apply: (test, value) => {
      if (typeof value !== 'number') return;
      // The variant gets the traffic the control leaves.
      test.control = { ...test.control, traffic: value };
      if (test.variant) test.variant = { ...test.variant, traffic: 100 - value };
    },
  },
  customAudienceIds: {
    label: 'Custom audiences',
    lock: 'afterLaunch',
    input: 'custom-audiences',
    names: 'custom-audience',
    list: true,
    read: (test) => test.customAudiences.map((a) => a.id),
    apply: (test, value, lookups) => {
      test.customAudiences = ids(value).map(
        (id) =>
          lookups.audience(id) ??
          test.customAudiences.find((a) => a.id === id) ?? {
            id,
            name: '(unknown audience)',
            rules: [],
          },
      );
    },
  },
  defaultAudiences: {
    label: 'Built-in audiences',
    lock: 'afterLaunch',
    input: 'default-audiences',
    names: 'default-audience',
    list: true,
    read: (test) => test.defaultAudiences.map((a) => a.id),
    apply: (test, value, lookups) => {
      test.defaultAudiences = ids(value).flatMap(
        (id) => test.defaultAudiences.find((a) => a.id === id) ?? lookups.defaultAudience(id) ?? [],
      );
    },
  },
  campaignId: {
    label: 'Campaign',
    lock: 'afterLaunch',
    input: 'campaign',
    limit: 'short',
    names: 'campaign',
    read: (test) => test.campaign?.id ?? null,
    apply: (test, value, lookups) => {
      test.campaign =
        typeof value === 'string'
          ? { ...(test.campaign ?? {}), id: value, name: lookups.campaignName(value) ?? null }
          : null;
    },
  },
  automaticallyStartAt: {
    label: 'Starts automatically',
    lock: 'afterLaunch',
    input: 'date-time',
    read: (test) => test.automaticallyStartAt ?? null,
    apply: (test, value) => {
      test.automaticallyStartAt = text(value);
    },
  },
  automaticallyEndAt: {
    label: 'Ends automatically',
    lock: 'afterLaunch',
    input: 'date-time',
    read: (test) => test.automaticallyEndAt ?? null,
    apply: (test, value) => {
      test.automaticallyEndAt = text(value);
    },
  },
  endWhenSignificant: {
    label: 'End when significant',
    lock: 'afterLaunch',
    input: 'checkbox',
    required: true,
    read: (test) => test.endWhenSignificant,
    apply: (test, value) => {
      if (typeof value === 'boolean') test.endWhenSignificant = value;
    },
  },
} as const satisfies Partial<Record<UpdateTestField, FieldSpec>>;

export type TestEditField = keyof typeof SPECS;

/** PATCH fields Splitbook does not edit, and when they lock all the same (the simulator checks them). */
export const OTHER_PATCH_FIELD_LOCKS: Record<Exclude<UpdateTestField, TestEditField>, FieldLock> = {
  variant: 'afterLaunch',
};

/** A field's description with its name and its type: the PATCH body's own schema of it. */
export type TestField<F extends TestEditField = TestEditField> = FieldSpec & {
  name: F;
  schema: (typeof UpdateTestBody.shape)[F];
};

function describe<F extends TestEditField>(name: F): TestField<F> {
  return { ...SPECS[name], name, schema: UpdateTestBody.shape[name] };
}

/** The names of the fields Splitbook edits, in the Edit tab's order. */
export const TEST_EDIT_FIELDS = Object.keys(SPECS) as TestEditField[];

/** Every field's description, in the Edit tab's order. */
export const TEST_FIELDS: readonly TestField[] = TEST_EDIT_FIELDS.map((name) => describe(name));

const BY_NAME: ReadonlyMap<string, TestField> = new Map(TEST_FIELDS.map((f) => [f.name, f]));

export function isTestEditField(name: string): name is TestEditField {
  return BY_NAME.has(name);
}

/** The description of a field Splitbook edits, or null for any other name. */
export function testField(name: TestEditField): TestField;
export function testField(name: string): TestField | null;
export function testField(name: string): TestField | null {
  return BY_NAME.get(name) ?? null;
}

/** The name of the record an id of a field names, as the cache knows it; null when unknown. */
export function nameOfId(names: FieldNames, id: string, lookups: RecordLookups): string | null {
  switch (names) {
    case 'tag':
      return lookups.tag(id)?.name ?? null;
    case 'custom-audience':
      return lookups.audience(id)?.name ?? null;
    case 'default-audience':
      return lookups.defaultAudience(id)?.name ?? null;
    case 'campaign':
      return lookups.campaignName(id);
  }
}
