// The one summary of a zod validation error: a readable line of "path: message" per issue.
import type { z } from 'zod';

export interface SummaryOptions {
  /** How the value itself is named when an issue has no path. */
  root?: string;
  /** Issues listed before "and N more". */
  max?: number;
}

/** "control.traffic: Invalid input: expected int, received string; Unknown field(s): 'x'; and 2 more". */
export function summarizeIssues(
  issues: readonly z.core.$ZodIssue[],
  { root = '(the whole value)', max = 5 }: SummaryOptions = {},
): string {
  const lines = issues.slice(0, max).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : null;
    if (issue.code === 'unrecognized_keys') {
      const fields = `Unknown field(s): ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
      return path === null ? fields : `${path}: ${fields}`;
    }
    return `${path ?? root}: ${issue.message}`;
  });
  const more = issues.length - max;
  if (more > 0) lines.push(`and ${more} more`);
  return lines.join('; ');
}
