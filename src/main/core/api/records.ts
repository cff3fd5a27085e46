// Validation of what the server sent: records one by one, so one bad record is set aside instead of its page.
import type { z } from 'zod';

/** A record the server sent that does not match its schema, kept as sent with the reason. */
export interface RejectedRecord {
  /** The record's `id` when it has a string one, so the cache can still tell it exists. */
  id: string | null;
  error: string;
  raw: unknown;
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
  for (const raw of records) {
    const parsed = schema.safeParse(raw);
    if (parsed.success) items.push(parsed.data);
    else rejected.push({ id: idOf(raw), error: summarizeZodError(parsed.error), raw });
  }
  return { items, rejected };
}

const MAX_ISSUES = 5;

/** One readable line: "control.traffic: Invalid input: expected int, received string; status: …". */
export function summarizeZodError(error: z.ZodError): string {
  const lines = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? '(the whole value)' : path}: ${issue.message}`;
  });
  const more = error.issues.length - MAX_ISSUES;
  if (more > 0) lines.push(`and ${more} more`);
  return lines.join('; ');
}

function idOf(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null || !('id' in raw)) return null;
  return typeof raw.id === 'string' ? raw.id : null;
}
