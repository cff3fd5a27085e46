// What Splitbook remembers of a test between syncs: its material state, the metadata it compares, and the diff of two.
import { z } from 'zod';
import { META_FIELDS, type ChangeValue, type Meta } from '../db/user/sent-edits';

/** The figures and states a snapshot keeps (History draws these). */
export const TestState = z.object({
  status: z.string(),
  stage: z.string(),
  removed: z.boolean(),
  tier: z.string().nullable(),
  /** Tier per goal (lifecycleByGoal), goal key -> tier. */
  tiers: z.record(z.string(), z.string()),
  leader: z.string().nullable(),
  probabilityToWin: z.number().nullable(),
  lift: z.number().nullable(),
  visitorsControl: z.number().nullable(),
  visitorsVariant: z.number().nullable(),
});
export type TestState = z.infer<typeof TestState>;

// The metadata a snapshot compares is read from the test's row in db/user/sent-edits.ts, where a sent
// edit is remembered in the same terms.
export { META_FIELDS, type ChangeValue, type Meta, type MetaField } from '../db/user/sent-edits';

export const Tracked = z.object({
  state: TestState,
  meta: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
export type Tracked = { state: TestState; meta: Meta };

/** field -> [from, to]; per-goal tiers as `tier:<goal>`; a test first seen after a store's first sync as `added`. */
export type Changes = Record<string, [ChangeValue, ChangeValue]>;

// The drift fields are named with the other tracked fields, where the review memory's storage reads them too.
export { DRIFT_FIELDS } from '#shared/domain/tracked-fields';

const CORE_FIELDS = [
  'status',
  'stage',
  'removed',
  'tier',
  'leader',
  'probabilityToWin',
  'lift',
  'visitorsControl',
  'visitorsVariant',
] as const;

export function diffTracked(before: Tracked, after: Tracked): Changes {
  const changes: Changes = {};
  for (const field of CORE_FIELDS) {
    const from = before.state[field];
    const to = after.state[field];
    if (from !== to) changes[field] = [from, to];
  }
  const goals = new Set([...Object.keys(before.state.tiers), ...Object.keys(after.state.tiers)]);
  for (const goal of [...goals].sort()) {
    const from = before.state.tiers[goal] ?? null;
    const to = after.state.tiers[goal] ?? null;
    if (from !== to) changes[`tier:${goal}`] = [from, to];
  }
  for (const field of META_FIELDS) {
    const from = before.meta[field] ?? null;
    const to = after.meta[field] ?? null;
    if (from !== to) changes[field] = [from, to];
  }
  return changes;
}

/** Running figures rounded so float noise in a re-sent number is no change. */
export function roundFigure(value: number | null, places = 4): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}
