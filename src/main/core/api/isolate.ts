// A listing page too large or unreadable as a whole, read again in smaller pages down to one record
// each: every record that fits is kept, and only the one that does not is set aside, by id or position.
import type { Pagination, Test } from '#shared/api/index';
import type { ApiError } from './errors';
import type { RejectedRecord } from './records';

/** One page of the listing as read: its records, or why its answer could not be taken. */
export type ListingRead =
  | { type: 'page'; items: Test[]; rejected: RejectedRecord[]; pagination: Pagination }
  | { type: 'unfit'; error: ApiError; reason: string; head: string };

export type Unfit = Extract<ListingRead, { type: 'unfit' }>;

export interface IsolatedPage {
  items: Test[];
  /** Indexes count from the page's first position, as if the page had been read whole. */
  rejected: RejectedRecord[];
  pagination: Pagination;
  /** The listing's count moved between the smaller pages: records may have shifted between them. */
  shifted: boolean;
}

/**
 * Smaller pages that failed, one after another, before any was read: past this, the fault is the
 * server's (every answer too large or broken), not one record's, and the page's own error stands.
 * Page 1 of 100, then 2 of 50, then 4 of 25: two records at fault in different halves still pass.
 */
export const BLIND_FAILURES = 7;

/** Longest id taken from an unfit answer's first bytes; a longer one is not believed. */
const MAX_ID_LENGTH = 200;

/**
 * The page size a failed page is read again at: the largest divisor of `size` up to its half (50 of
 * 100, 25 of 50, 5 of 25, 1 of 5), so each smaller page lies inside the failed one. Page p of size s
 * at size d is pages (p−1)·s/d + 1 to p·s/d.
 */
export function smallerPageSize(size: number): number {
  for (let d = Math.floor(size / 2); d > 1; d--) if (size % d === 0) return d;
  return 1;
}

/**
 * Reads page `page` (of `perPage` records) again in smaller pages after it came back `failure`,
 * level by level, down to pages of one record. A record alone on an unfit page is rejected with the
 * reason and the id its answer's first bytes show (null when they do not: the caller names it by
 * position). When no smaller page could be read, the listing's counts are those `known` from an
 * earlier page of the walk; without any, or after BLIND_FAILURES, the page's own error is thrown.
 */
export async function isolateRecords(
  page: number,
  perPage: number,
  failure: Unfit,
  read: (page: number, perPage: number) => Promise<ListingRead>,
  known: Pagination | null = null,
): Promise<IsolatedPage> {
  // A page of one record is already as small as pages go, and told nothing about the listing.
  if (perPage <= 1) throw failure.error;
  const first = (page - 1) * perPage;
  const items: { position: number; test: Test }[] = [];
  const rejected: RejectedRecord[] = [];
  const counts = new Set<number>();
  let pagination: Pagination | null = null;
  let blind = 1;
  // Spans still unfit: [start, start + size) of the listing, start a multiple of size.
  let spans = [{ start: first, size: perPage, failure }];
  while (spans.length > 0) {
    const next: typeof spans = [];
    const asked = spans.flatMap(({ start, size }) => {
      const d = smallerPageSize(size);
      return Array.from({ length: size / d }, (_, k) => ({ start: start + k * d, size: d }));
    });
    const answers = await Promise.all(asked.map((s) => read(s.start / s.size + 1, s.size)));
    answers.forEach((answer, k) => {
      const span = asked[k];
      if (!span) return;
      if (answer.type === 'page') {
        pagination ??= answer.pagination;
        counts.add(answer.pagination.totalCount);
        answer.items.forEach((test, i) => items.push({ position: span.start + i, test }));
        for (const r of answer.rejected)
          rejected.push({ ...r, index: span.start + r.index - first });
      } else if (span.size === 1) {
        rejected.push({
          id: recordIdInHead(answer.head),
          error: unfitReason(answer),
          raw: null,
          index: span.start - first,
        });
        if (pagination === null) blind += 1;
      } else {
        next.push({ ...span, failure: answer });
        if (pagination === null) blind += 1;
      }
    });
    if (pagination === null && blind >= BLIND_FAILURES) throw failure.error;
    spans = next;
  }
  const counted = pagination ?? known;
  if (counted === null) throw failure.error;
  const { totalCount } = counted;
  // A position the listing has no more (it shrank while being read again) sets nothing aside.
  const kept = rejected.filter((r) => r.id !== null || first + r.index < totalCount);
  return {
    items: items.sort((a, b) => a.position - b.position).map((i) => i.test),
    rejected: kept.sort((a, b) => a.index - b.index),
    pagination: { page, perPage, totalCount, totalPages: Math.ceil(totalCount / perPage) },
    shifted: counts.size > 1,
  };
}

/** The set-aside reason of a record whose page of one could not be taken. */
function unfitReason(unfit: Unfit): string {
  return unfit.error.kind === 'too-large'
    ? `The record is too large: alone on its page, the store's answer was ${unfit.reason}, the most Splitbook reads of one answer.`
    : `The record cannot be read: alone on its page, the store's answer is ${unfit.reason}.`;
}

/**
 * The `id` of the first record of `data` in the first bytes of a listing answer (`{"data":[{"id":…`),
 * read without parsing the whole (it is cut short, or not JSON): strings, nesting and keys are
 * followed, values are skipped. Null when the id is not there, not a string, or not whole.
 */
export function recordIdInHead(head: string): string | null {
  // One frame per open object or array; `key` is the key of the value being read in an object.
  const stack: { array: boolean; key: string | null; index: number }[] = [];
  let expectKey = false;
  let i = 0;
  const readString = (): string | null => {
    let out = '';
    for (i += 1; i < head.length; i++) {
      const c = head[i];
      if (c === '"') {
        i += 1;
        return out;
      }
      if (c === '\\') {
        const e = head[i + 1];
        if (e === undefined) return null;
        if (e === 'u') {
          const hex = head.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) return null;
          out += String.fromCharCode(parseInt(hex, 16));
          i += 5;
        } else {
          out +=
            ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[e] ?? e;
          i += 1;
        }
      } else {
        out += c;
      }
    }
    return null;
  };
  // Inside the root object's `data` array, first element, an object: the record.
  const inRecord = () =>
    stack.length === 3 &&
    stack[0]?.array === false &&
    stack[1]?.array === true &&
    stack[0].key === 'data' &&
    stack[1].index === 0 &&
    stack[2]?.array === false;
  while (i < head.length) {
    const c = head[i];
    const top = stack.at(-1);
    if (c === '"') {
      const atKey = expectKey && top !== undefined && !top.array;
      const recordKey = inRecord();
      const text = readString();
      if (text === null) return null;
      if (atKey && top) {
        top.key = text;
        expectKey = false;
      } else if (recordKey && top?.key === 'id') {
        return text !== '' && text.length <= MAX_ID_LENGTH ? text : null;
      }
      continue;
    }
    if (c === '{' || c === '[') {
      stack.push({ array: c === '[', key: null, index: 0 });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
      // The first record is over without an id.
      if (stack.length === 2 && stack[0]?.key === 'data') return null;
    } else if (c === ',') {
      if (top?.array) top.index += 1;
      else expectKey = true;
      if (top && !top.array) top.key = null;
    }
    i += 1;
  }
  return null;
}
