// The tag picker's options for what is typed: known tags that match (the best first), then "Create tag"
// only when no tag of that name exists (names ignore case), always last so it is never the default.
import type { TagRow } from '#shared/contract/index';

export type TagOption = { kind: 'tag'; tag: TagRow } | { kind: 'create'; name: string };

/** At most this many known tags are offered at once; typing narrows them. */
export const MAX_TAG_OPTIONS = 12;

export function tagOptions(known: readonly TagRow[], chosen: readonly string[], typed: string) {
  const text = typed.trim().toLowerCase();
  const rank = (name: string): number => {
    const lower = name.toLowerCase();
    if (text === '') return 3;
    if (lower === text) return 0;
    if (lower.startsWith(text)) return 1;
    if (lower.split(/[\s\-_/]+/).some((word) => word.startsWith(text))) return 2;
    if (lower.includes(text)) return 3;
    return -1;
  };
  const tags = known
    .filter((t) => !chosen.includes(t.id))
    .map((tag) => ({ tag, rank: rank(tag.name) }))
    .filter((t) => t.rank >= 0)
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        b.tag.testCount - a.tag.testCount ||
        a.tag.name.localeCompare(b.tag.name),
    )
    .slice(0, MAX_TAG_OPTIONS)
    .map(({ tag }): TagOption => ({ kind: 'tag', tag }));
  const exists = known.some((t) => t.name.trim().toLowerCase() === text);
  return text === '' || exists
    ? tags
    : [...tags, { kind: 'create', name: typed.trim() } satisfies TagOption];
}
