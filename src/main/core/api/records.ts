// Validation of what the server sent: records one by one, so one bad record is set aside instead of its page.
import type { z } from 'zod';
import { summarizeIssues } from '#shared/validation';

/** A record the server sent that does not match its schema, kept as sent with the reason. */
export interface RejectedRecord {
  /** The record's `id` when it has a string one, so the cache can still tell it exists. */
  id: string | null;
  error: string;
  raw: unknown;
  /** Its place among the records sent (0 for the first), to name one that has no usable id. */
  index: number;
}

export interface ParsedRecords<T> {
  items: T[];
  rejected: RejectedRecord[];
}

export function parseRecords<T>(
  schema: z.ZodType<T>,
  records: readonly unknown[],
): ParsedRecords<T> {
  const items: T[] = [];
  const rejected: RejectedRecord[] = [];
  records.forEach((raw, index) => {
    const parsed = schema.safeParse(raw);
    if (parsed.success) items.push(parsed.data);
    else rejected.push({ id: idOf(raw), error: summarizeIssues(parsed.error.issues), raw, index });
  });
  return { items, rejected };
}

/** An empty id names nothing: the record is then known by its place, like one without an id. */
function idOf(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null || !('id' in raw)) return null;
  return typeof raw.id === 'string' && raw.id !== '' ? raw.id : null;
}
