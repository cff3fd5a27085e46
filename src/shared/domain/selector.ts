// An audience rule's selector for reading: the API leaves its non-null shape unstated, so known shapes read as a phrase, anything else as key: value pairs, never as JSON.

/**
 * How a selector reads. `phrase`: a shape Splitbook knows (a string, `{ type, value }`, `{ value }`),
 * as a label and the selector's own text. `fields`: an object of a shape it does not know, flattened
 * to one key: value pair per leaf (nested keys joined with dots), shown as they came.
 */
export type SelectorView =
  | { kind: 'phrase'; label: string; value: string }
  | { kind: 'fields'; fields: { key: string; value: string }[] };

/** Types of `{ type, value }` selectors seen in stores, by their usual names. */
const SELECTOR_TYPES: Record<string, string> = {
  css: 'CSS selector',
  xpath: 'XPath',
  id: 'element id',
  class: 'class name',
  url: 'URL',
  path: 'path',
  regex: 'pattern',
  regexp: 'pattern',
  text: 'text',
  cookie: 'cookie',
  query: 'query parameter',
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function scalar(value: unknown): string | null {
  if (value === null) return 'not set';
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** Every leaf of an object or array as `a.b: value`; lists of plain values stay on one line. */
function flatten(value: unknown, prefix: string, out: { key: string; value: string }[]): void {
  const plain = scalar(value);
  if (plain !== null) {
    out.push({ key: prefix, value: plain });
    return;
  }
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    if (items.every((item): item is string => item !== null)) {
      out.push({ key: prefix, value: items.length > 0 ? items.join(', ') : '(none)' });
      return;
    }
    value.forEach((item, i) => flatten(item, `${prefix}[${i + 1}]`, out));
    return;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) out.push({ key: prefix, value: '(none)' });
    for (const [key, inner] of entries) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.push({ key: prefix, value: String(value) });
}

/** The selector as Splitbook shows it, or null when there is none. */
export function describeSelector(selector: unknown): SelectorView | null {
  if (selector === null || selector === undefined) return null;
  const plain = scalar(selector);
  if (plain !== null) return { kind: 'phrase', label: 'selector', value: plain };
  if (isRecord(selector)) {
    const keys = Object.keys(selector);
    const { type, value } = selector;
    if (keys.length === 2 && typeof type === 'string' && typeof value === 'string') {
      return {
        kind: 'phrase',
        label: SELECTOR_TYPES[type.toLowerCase()] ?? `${type} selector`,
        value,
      };
    }
    if (keys.length === 1 && typeof value === 'string') {
      return { kind: 'phrase', label: 'selector', value };
    }
  }
  const fields: { key: string; value: string }[] = [];
  flatten(selector, '', fields);
  return { kind: 'fields', fields: fields.map((f) => ({ ...f, key: f.key || 'value' })) };
}

/** The selector on one line (exports, tooltips): `CSS selector .size-guide`, `type: a; depth: 2`. */
export function selectorText(selector: unknown): string | null {
  const view = describeSelector(selector);
  if (view === null) return null;
  if (view.kind === 'phrase') return `${view.label} ${view.value}`;
  return view.fields.map((f) => `${f.key}: ${f.value}`).join('; ');
}
