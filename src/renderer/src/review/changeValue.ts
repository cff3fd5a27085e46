// A value in a change line or a History entry as the user reads it: timestamps in local date and time
// (the exact value kept for a tooltip), booleans in words, long texts cut.
import type { ChangeValue } from '#shared/contract/index';
import { formatDateTime } from '../lib/format';

const ISO_MOMENT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `text` to show; `exact` the value as recorded, when `text` rounds or reformats it. */
export function changeValueText(
  value: ChangeValue,
  max = 120,
): { text: string; exact: string | null } {
  if (value === null || value === '') return { text: 'none', exact: null };
  if (typeof value === 'boolean') return { text: value ? 'yes' : 'no', exact: null };
  if (typeof value === 'number') return { text: String(value), exact: null };
  if (ISO_MOMENT.test(value) && !Number.isNaN(Date.parse(value)))
    return { text: formatDateTime(value), exact: value };
  return value.length > max
    ? { text: `${value.slice(0, max - 3)}…`, exact: value }
    : { text: value, exact: null };
}
