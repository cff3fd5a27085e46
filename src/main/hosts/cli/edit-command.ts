// `edit`: queues a test's edit in the outbox from the command line, through the same core.services.edits
// the window uses (same checks, same refusals in the same words); the next `sync` sends it.
import { TestChanges, type PendingEdit } from '#shared/contract/index';
import {
  isTestEditField,
  TEST_EDIT_FIELDS,
  testField,
  type FieldInput,
  type TestEditField,
} from '#shared/domain/test-fields';
import { parseDateTime } from '#shared/domain/input-rules';
import { problem } from '#shared/problem';
import { summarizeIssues } from '#shared/validation';
import type { Core } from '#core/index';
import type { Io } from './commands';

/** How a FIELD=VALUE's text becomes the PATCH body's value; `null` clears any field. */
type ValueKind = 'text' | 'integer' | 'boolean' | 'time' | 'ids';

/** A field's value kind, by the way the form edits it (its description in test-fields.ts). */
const VALUE_KIND: Record<FieldInput, ValueKind> = {
  text: 'text',
  'long-text': 'text',
  campaign: 'text',
  integer: 'integer',
  checkbox: 'boolean',
  'yes-no-unset': 'boolean',
  'date-time': 'time',
  tags: 'ids',
  'custom-audiences': 'ids',
  'default-audiences': 'ids',
};

export type EditArgs = {
  store?: string;
  test?: string;
  set?: readonly string[];
  'add-tag'?: readonly string[];
  'remove-tag'?: readonly string[];
};

/** One value by its field's type, or the reason it is not one. */
function parseValue(field: TestEditField, text: string): { value: unknown } | { error: string } {
  if (text === 'null') return { value: null };
  const kind: ValueKind = VALUE_KIND[testField(field).input];
  switch (kind) {
    case 'text':
      return { value: text };
    case 'integer':
      return /^[+-]?\d+$/.test(text.trim())
        ? { value: Number(text) }
        : { error: `${field} takes a whole number (or null), not "${clip(text)}".` };
    case 'boolean':
      return text === 'true' || text === 'false'
        ? { value: text === 'true' }
        : { error: `${field} takes true, false or null, not "${clip(text)}".` };
    case 'time': {
      // The API's own rule: ISO 8601 with its offset, on a day that exists (2026-02-30 is no day).
      const at = parseDateTime(text);
      return at === null
        ? {
            error: `${field} takes a date and time with its offset on a day that exists (2026-03-01T09:00:00Z) or null, not "${clip(text)}".`,
          }
        : { value: at };
    }
    case 'ids':
      return {
        value: text
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      };
  }
}

/** The --set options as the PATCH body's fields, or what is wrong with them (a usage error, exit 2). */
export function parseSets(
  sets: readonly string[],
): { changes: ReturnType<typeof TestChanges.parse> } | { error: string } {
  const changes: Record<string, unknown> = {};
  for (const set of sets) {
    const at = set.indexOf('=');
    if (at <= 0) return { error: `--set takes FIELD=VALUE, not "${set}".` };
    const field = set.slice(0, at).trim();
    if (!isTestEditField(field))
      return { error: `Unknown field: ${field}. Fields: ${TEST_EDIT_FIELDS.join(', ')}.` };
    if (field in changes) return { error: `${field} is set twice.` };
    const parsed = parseValue(field, set.slice(at + 1));
    if ('error' in parsed) return parsed;
    changes[field] = parsed.value;
  }
  // The bridge's own schema of an edit: the CLI accepts exactly what the window may send. What the core
  // then checks of every edit (a length, a bound, a required field) it refuses in the window's words.
  const checked = TestChanges.safeParse(changes);
  if (!checked.success) return { error: `Invalid value: ${summarizeIssues(checked.error.issues)}` };
  return { changes: checked.data };
}

/** A value quoted back in a refusal, cut short: a 120 KB title is not echoed whole. */
function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** A wrong `edit` command line, in words, or null. */
export function checkEditArgs(values: EditArgs): string | null {
  if (!values.store) return 'edit needs --store ID|NAME.';
  if (!values.test) return 'edit needs --test ID.';
  const sets = values.set ?? [];
  const adds = values['add-tag'] ?? [];
  const removes = values['remove-tag'] ?? [];
  if (sets.length + adds.length + removes.length === 0)
    return 'edit needs at least one --set FIELD=VALUE, --add-tag NAME or --remove-tag NAME.';
  for (const name of [...adds, ...removes]) if (name.trim() === '') return 'A tag needs a name.';
  const parsed = parseSets(sets);
  if ('error' in parsed) return parsed.error;
  if (parsed.changes.tagIds !== undefined && adds.length + removes.length > 0)
    return 'Use --set tagIds=… or --add-tag/--remove-tag, not both.';
  return null;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Queues the edit and prints it as the outbox holds it. Tags go by name: a tag the store has (or a pending
 * one) by its name, ignoring case; a new name is created through the outbox, as the window's tag picker
 * does. A refused edit leaves nothing queued, the tags it would have created included.
 */
export async function editTest(
  core: Core,
  io: Io,
  storeId: string,
  values: EditArgs & { json?: boolean },
): Promise<number> {
  const parsed = parseSets(values.set ?? []);
  if ('error' in parsed) throw new Error(parsed.error);
  const testId = values.test ?? '';
  const changes: Record<string, unknown> = { ...parsed.changes };
  const adds = values['add-tag'] ?? [];
  const removes = values['remove-tag'] ?? [];
  const created: string[] = [];
  try {
    if (adds.length + removes.length > 0) {
      const { test } = await core.services.tests.get({ storeId, testId });
      const tags = await core.services.tags.list({ storeId });
      let ids = test.tags.map((tag) => tag.id);
      for (const name of removes) {
        const on = test.tags.filter((tag) => sameName(tag.name, name));
        if (on.length === 0)
          throw problem(
            'validation',
            400,
            'Tag not on the test',
            `The test has no tag named '${clip(name)}' (its tags: ${test.tags.map((t) => t.name).join(', ') || 'none'}).`,
          );
        ids = ids.filter((id) => !on.some((tag) => tag.id === id));
      }
      for (const name of adds) {
        const known =
          tags.find((tag) => tag.name === name.trim()) ??
          tags.find((tag) => sameName(tag.name, name));
        const id = known
          ? known.id
          : (await core.services.edits.createTag({ storeId, name: name.trim() })).id;
        if (!known) created.push(id);
        if (!ids.includes(id)) ids.push(id);
      }
      const before = test.tags.map((tag) => tag.id);
      if (ids.length !== before.length || ids.some((id) => !before.includes(id)))
        changes.tagIds = ids;
    }
    const edit = await core.services.edits.editTest({ storeId, testId, changes });
    printEdit(io, edit, values.json ?? false);
    return 0;
  } catch (error) {
    // The tags made for this edit go with it: nothing has sent them (the CLI never sends on edit).
    for (const id of created)
      await core.services.edits
        .discard({ storeId, kind: 'tag', recordId: id })
        .catch(() => undefined);
    throw error;
  }
}

function shown(value: unknown, names: Record<string, string>): string {
  if (Array.isArray(value)) return `[${value.map((v) => shown(v, names)).join(', ')}]`;
  if (typeof value === 'string' && names[value] !== undefined) return JSON.stringify(names[value]);
  return JSON.stringify(value ?? null);
}

/** The record as `pending` lists it, with each field's value before and after. */
function printEdit(io: Io, edit: PendingEdit, json: boolean): void {
  if (json) {
    io.out(JSON.stringify(edit, null, 2));
    return;
  }
  io.out(
    `${edit.kind} ${edit.recordId} "${edit.label}": ${edit.state}${edit.note ? ` (${edit.note})` : ''}`,
  );
  for (const change of edit.changes)
    io.out(
      `  ${change.field}: ${shown(change.base, edit.names)} -> ${shown(change.mine, edit.names)}`,
    );
  io.out('The next sync sends it (pending lists what waits).');
}
