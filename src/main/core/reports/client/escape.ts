// Text into HTML, safely: every string that came from the API or the user goes through here, so markup
// in a title is shown as text and never runs. And a file name every file system accepts.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or an attribute value: & < > " ' escaped. */
export function esc(text: string | number | null | undefined): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * A title as a line of a list or a cell of a table: at most `max` characters, cut at a word with an
 * ellipsis, escaped; the whole of it in the element's title. Titles have no length the API states.
 */
export function shortTitle(title: string, max = 120): string {
  if (title.length <= max) return esc(title);
  const cut = title.slice(0, max);
  const word = cut.lastIndexOf(' ');
  return `<span title="${esc(title)}">${esc((word > max * 0.6 ? cut.slice(0, word) : cut).trimEnd())}…</span>`;
}

/** An http(s) URL for a link's href, or null (javascript:, data: and anything else are never linked). */
export function safeHref(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Windows' reserved names, which no folder may hold whatever the extension. */
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * A file name every file system takes: no path separators, control or reserved characters, no
 * trailing dot or space, at most 150 characters before the extension.
 */
export function safeFileName(name: string, extension: string): string {
  const unsafe = new Set([...'<>:"/\\|?*']);
  let base = [...name.normalize('NFC')]
    .map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || unsafe.has(c) ? ' ' : c))
    .join('')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[. ]+$/, '');
  if (base.length > 150) base = base.slice(0, 150).trim();
  if (base === '' || RESERVED.test(base)) base = `report ${base}`.trim();
  return `${base}.${extension}`;
}
