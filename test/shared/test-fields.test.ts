// The field descriptions (shared/domain/test-fields.ts) and every table derived from them: the lock
// decisions and their words, labels, the form's controls, the CLI's value kinds, a field's value on a
// record and on the local copy, all equal to what the nine tables said before (issue 19, item 3).
// fixtures/test-fields-before.json was written by the tables as they were, before they were derived.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TEST_STATUSES, type UpdateTestField } from '#shared/api/index';
import {
  checkTestChange,
  lockMessage,
  lockedFields,
  REQUIRED_TEST_FIELDS,
  sameValue,
  testFieldLock,
  testFieldValue,
} from '#shared/domain/mutability';
import {
  TEST_EDIT_FIELDS,
  TEST_FIELDS,
  testField,
  type TestEditField,
} from '#shared/domain/test-fields';
import { parseSets } from '../../src/main/hosts/cli/edit-command';
import { saveTag } from '#core/db/cache/local-copies';
import { applyTestChanges } from '#core/outbox/local-copies';
import { customAudience, defaultAudience, makeCampaign, makeTest, tag } from '../db/fixtures';
import { STORE, cache, outboxDb } from '../outbox/support';

type Lock = { form: string | null; server: string | null; core: string | null };
const before = JSON.parse(
  readFileSync(new URL('fixtures/test-fields-before.json', import.meta.url), 'utf8'),
) as {
  order: string[];
  required: string[];
  locks: Record<string, Record<string, Lock>>;
  labels: Record<string, string>;
  values: Record<string, unknown>[];
  same: Record<string, boolean[]>;
  checks: Record<string, string[][]>;
  applied: [string, string, unknown, Record<string, unknown>][];
};

const PATCH_FIELDS: UpdateTestField[] = [...TEST_EDIT_FIELDS, 'variant'];
const STATUSES = [...TEST_STATUSES, 'archived'];

describe('the fields Splitbook edits', () => {
  it('are the twenty of before, in the Edit tab’s order (the CLI’s list now follows it)', () => {
    expect([...TEST_EDIT_FIELDS].sort()).toEqual([...before.order].sort());
    // The form listed custom audiences before built-in ones; TEST_EDIT_FIELDS had them the other way.
    const swapped = before.order.map((f) =>
      f === 'defaultAudiences'
        ? 'customAudienceIds'
        : f === 'customAudienceIds'
          ? 'defaultAudiences'
          : f,
    );
    expect(TEST_EDIT_FIELDS).toEqual(swapped);
    expect([...REQUIRED_TEST_FIELDS].sort()).toEqual([...before.required].sort());
  });

  it('each carries the PATCH body’s own schema of it', () => {
    for (const field of TEST_FIELDS) {
      expect(field.schema.safeParse(null).success, field.name).toBe(true);
      const sample: Record<string, unknown> = {
        text: 'x',
        'long-text': 'x',
        campaign: 'x',
        'date-time': '2026-03-01T09:00:00.000Z',
        integer: 3,
        checkbox: true,
        'yes-no-unset': false,
        tags: [tag(1, 'A').id],
        'custom-audiences': [customAudience(1, 'A').id],
        'default-audiences': [defaultAudience(1, 'FR').id],
      };
      expect(field.schema.safeParse(sample[field.input]).success, field.name).toBe(true);
    }
  });
});

describe('when a field locks', () => {
  it('gives the form the same short reason for every field and status', () => {
    for (const field of PATCH_FIELDS)
      for (const status of STATUSES)
        expect(testFieldLock(field, status), `${field}/${status}`).toBe(
          before.locks[field]?.[status]?.form,
        );
  });

  it('gives the store’s simulator the same sentence for every field and status', () => {
    for (const field of PATCH_FIELDS)
      for (const status of STATUSES)
        expect(lockMessage(field, status), `${field}/${status}`).toBe(
          before.locks[field]?.[status]?.server,
        );
  });

  it('refuses in the core with that sentence too (implemented: "can be set only after", not "is only after")', () => {
    for (const field of PATCH_FIELDS)
      for (const status of STATUSES) {
        const was = before.locks[field]?.[status];
        const now = lockedFields([field], status)[0]?.message ?? null;
        // The core said `'implemented' is only after the test has ended (status: …)`: one sentence now.
        const expected =
          field === 'implemented' && was?.core
            ? was.core.replace(' is only ', ' can be set only ')
            : was?.core;
        expect(now, `${field}/${status}`).toBe(expected);
        expect(now).toBe(was?.server);
      }
  });
});

describe('how a field is shown and edited', () => {
  it('has the label Pending and the Edit tab showed (edits/pending.ts adds a campaign’s and an audience’s)', () => {
    for (const field of TEST_FIELDS)
      expect(field.label, field.name).toBe(before.labels[field.name]);
    expect(Object.keys(before.labels).filter((f) => testField(f) === null)).toEqual([
      'variant',
      'name',
      'objective',
      'rules',
      'unknownField',
    ]);
  });

  it('has the control, bounds, hint, suggestions and clearing the Edit tab had', () => {
    // The Edit tab's table as it was: its kind, hint, and what its template did by field name.
    const FORM_BEFORE: Record<TestEditField, { kind: string; hint?: string }> = {
      title: { kind: 'text' },
      hypothesisDescription: { kind: 'long' },
      controlTitle: { kind: 'text' },
      variantTitle: { kind: 'text' },
      priority: { kind: 'list' },
      surfaceArea: { kind: 'list' },
      impact: { kind: 'int' },
      effort: { kind: 'int' },
      tagIds: { kind: 'list' },
      implemented: { kind: 'tristate' },
      goal: { kind: 'list' },
      device: { kind: 'list' },
      visitorOption: { kind: 'list' },
      controlTraffic: { kind: 'int', hint: '% of visitors' },
      customAudienceIds: { kind: 'list' },
      defaultAudiences: { kind: 'list' },
      campaignId: { kind: 'list' },
      automaticallyStartAt: { kind: 'date' },
      automaticallyEndAt: { kind: 'date' },
      endWhenSignificant: { kind: 'bool' },
    };
    const byName: Record<string, string> = {
      tagIds: 'tags',
      customAudienceIds: 'custom-audiences',
      defaultAudiences: 'default-audiences',
      campaignId: 'campaign',
    };
    const byKind: Record<string, string> = {
      long: 'long-text',
      int: 'integer',
      bool: 'checkbox',
      tristate: 'yes-no-unset',
      date: 'date-time',
      text: 'text',
      list: 'text',
    };
    const notNullable = ['title', 'goal', 'device', 'visitorOption'];
    expect(TEST_FIELDS.map((f) => f.name)).toEqual(Object.keys(FORM_BEFORE));
    for (const field of TEST_FIELDS) {
      const was = FORM_BEFORE[field.name];
      expect(field.input, field.name).toBe(byName[field.name] ?? byKind[was.kind]);
      expect(field.hint, field.name).toBe(was.hint);
      expect(field.range, field.name).toEqual(
        field.name === 'controlTraffic' ? { min: 0, max: 100 } : undefined,
      );
      expect(field.suggest, field.name).toBe(
        ({ goal: 'goals', device: 'devices' } as Record<string, string>)[field.name],
      );
      if (field.input === 'text')
        expect(field.required === true, field.name).toBe(notNullable.includes(field.name));
    }
  });

  it('is read on the command line as the CLI’s own table read it', () => {
    const CLI_BEFORE: Record<TestEditField, string> = {
      title: 'text',
      hypothesisDescription: 'text',
      controlTitle: 'text',
      variantTitle: 'text',
      priority: 'text',
      surfaceArea: 'text',
      impact: 'integer',
      effort: 'integer',
      tagIds: 'ids',
      implemented: 'boolean',
      goal: 'text',
      device: 'text',
      visitorOption: 'text',
      controlTraffic: 'integer',
      defaultAudiences: 'ids',
      customAudienceIds: 'ids',
      campaignId: 'text',
      automaticallyStartAt: 'time',
      automaticallyEndAt: 'time',
      endWhenSignificant: 'boolean',
    };
    const ID = tag(1, 'A').id;
    const typed: Record<string, [string, unknown]> = {
      text: ['word', 'word'],
      integer: ['7', 7],
      boolean: ['true', true],
      time: ['2026-03-01T09:00:00Z', '2026-03-01T09:00:00.000Z'],
      ids: [`${ID}, ${ID}`, [ID, ID]],
    };
    const refusal: Record<string, string> = {
      integer: 'takes a whole number',
      boolean: 'takes true, false or null',
      time: 'takes a date and time',
    };
    for (const field of TEST_EDIT_FIELDS) {
      const [text, value] = typed[CLI_BEFORE[field]] ?? ['', null];
      expect(parseSets([`${field}=${text}`]), field).toEqual({ changes: { [field]: value } });
      const words = refusal[CLI_BEFORE[field]];
      if (words)
        expect(parseSets([`${field}=not a value`]), field).toEqual({
          error: expect.stringContaining(words),
        });
    }
  });
});

describe('a field’s value', () => {
  const samples = [
    makeTest({ n: 1 }),
    makeTest({
      n: 2,
      variant: null,
      hypothesisDescription: 'Because',
      campaign: { id: 'c1', name: 'Spring' },
      tags: [tag(1, 'A'), tag(2, 'B')],
      customAudiences: [customAudience(1, 'Danes')],
      defaultAudiences: [defaultAudience(1, 'FR')],
      priority: 'high',
      surfaceArea: 'checkout',
      impact: 3,
      effort: 2,
      implemented: true,
      automaticallyEndAt: '2026-05-01T00:00:00.000Z',
      endWhenSignificant: true,
    }),
  ];

  it('reads from a test record as before', () => {
    samples.forEach((test, i) => {
      for (const field of PATCH_FIELDS)
        expect(testFieldValue(test, field) ?? '(undefined)', field).toEqual(
          before.values[i]?.[field],
        );
    });
  });

  it('compares and checks as before', () => {
    for (const field of PATCH_FIELDS) {
      expect(
        [
          sameValue(field, ['a', 'b'], ['b', 'a', 'a']),
          sameValue(field, [1], ['1']),
          sameValue(field, null, undefined),
          sameValue(field, 'x', 'x'),
          sameValue(field, null, []),
        ],
        field,
      ).toEqual(before.same[field]);
      // As before, but that a date and time must now be one (issue 46: the API's own rule, checked
      // before an edit is queued): '', '  ' and 'x' are refused where they were let through.
      const checks = before.checks[field] as string[][];
      const expected =
        testField(field)?.input === 'date-time'
          ? checks.map((errors, i) =>
              [1, 2, 3].includes(i)
                ? [
                    ...errors,
                    `'${field}' must be a date and time with its offset on a day that exists (2026-03-01T09:00:00Z), not ${JSON.stringify(['', '  ', 'x'][i - 1])}`,
                  ]
                : errors,
            )
          : checks;
      expect(
        [null, '', '  ', 'x', 0, false].map((v) => checkTestChange({ [field]: v })),
        field,
      ).toEqual(expected);
    }
  });

  it('applies to the local copy as before, every value of every field', () => {
    const db = outboxDb();
    const campaign = makeCampaign(2, 'Summer');
    const audience = customAudience(3, 'Swedes');
    cache(db, {
      tests: [samples[1] ?? makeTest({ n: 2 })],
      campaigns: [campaign],
      audiences: [audience],
    });
    saveTag(db, STORE, { id: tag(7, 'x').id, name: 'Seven' });
    const found = new Map(samples.map((t) => [t.id, t]));
    expect(before.applied.length).toBeGreaterThan(500);
    for (const [testId, field, given, changed] of before.applied) {
      const server = found.get(testId);
      if (!server) throw new Error(`No sample ${testId}`);
      const value = given === '(undefined)' ? undefined : given;
      const out: Record<string, unknown> = applyTestChanges(db, STORE, server, { [field]: value });
      const was: Record<string, unknown> = server;
      const now = Object.fromEntries(
        Object.keys(out)
          .filter((k) => JSON.stringify(out[k]) !== JSON.stringify(was[k]))
          .map((k) => [k, out[k]]),
      );
      expect(now, `${field} = ${JSON.stringify(given)}`).toEqual(changed);
    }
  });

  it('is described once per field Splitbook edits, and by no other name', () => {
    for (const field of TEST_EDIT_FIELDS) expect(testField(field).name).toBe(field);
    expect(testField('variant')).toBeNull();
    expect(testField('rules')).toBeNull();
  });
});
