// `programme.*`: the programme across tests and stores — the backlog of tests not launched, ranked by a
// score the user chooses; what concluded tests taught over a period (shared/domain/programme), the
// user's one-line takeaway per test; and what shipped winners are worth a year, as an estimate.
import { z } from 'zod';
import { DecisionCall } from '../domain/decisions/schemas';
import { BacklogScore } from '../domain/programme/backlog';
import { method, StoreId } from './common';

export { BacklogScore };

// ---------- the backlog ----------

export const BacklogInput = z.object({
  /** One store, or every store (null). */
  storeId: StoreId.nullable().default(null),
  score: BacklogScore.default('impact-per-effort'),
  /** Keep ideas with this tag (names ignore case), this surface area, this goal (as sent); null: any. */
  tag: z.string().max(200).nullable().default(null),
  surfaceArea: z.string().max(200).nullable().default(null),
  goal: z.string().max(200).nullable().default(null),
});
export type BacklogInput = z.infer<typeof BacklogInput>;

export const BacklogRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  testId: z.string(),
  title: z.string(),
  /** draft, scheduled or incompatible: never launched. */
  status: z.string(),
  stage: z.string(),
  goal: z.string(),
  /** Tag names, and their ids in the same order (edits.editTest takes tagIds). */
  tags: z.array(z.string()),
  tagIds: z.array(z.string()),
  surfaceArea: z.string().nullable(),
  priority: z.string().nullable(),
  /** The API's integers, on a scale the API does not state (each store's own). */
  impact: z.int().nullable(),
  effort: z.int().nullable(),
  /** The chosen score; null when it cannot be applied (impact or effort missing, effort 0). */
  score: z.number().nullable(),
  /** 1-based place in the ranking of the rows returned. */
  rank: z.int().positive(),
  /** The planner's days to detect the minimum effect on the goal at the store's traffic; null without traffic or a known goal. */
  plannerDays: z.number().nullable(),
  /** The planner's sentence, or why there is no estimate. */
  plannerText: z.string(),
  /**
   * The planner's days are more than the store's longest wait (decision settings): launched as it is,
   * the test would end "cannot conclude". Flagged in the view beside the days.
   */
  plannerTooLong: z.boolean(),
  /** Fields of this test with edits not yet confirmed by the store (impact, effort, priority, tagIds, …). */
  pendingFields: z.array(z.string()),
  updatedAt: z.string(),
});
export type BacklogRow = z.infer<typeof BacklogRow>;

export const ProgrammeFacet = z.object({ key: z.string(), label: z.string(), count: z.int() });
export type ProgrammeFacet = z.infer<typeof ProgrammeFacet>;

export const Backlog = z.object({
  score: BacklogScore,
  /** The score in words ("impact ÷ effort") and the note on its scale, to show beside the ranking. */
  words: z.string(),
  note: z.string(),
  /** Every score the user can choose, with its words. */
  scores: z.array(z.object({ value: BacklogScore, words: z.string() })),
  /** Highest score first; ties by priority, then title; unscored last. */
  rows: z.array(BacklogRow),
  /** Ideas in the store scope before the tag, surface-area and goal filters. */
  total: z.int(),
  /** Counts over the store scope (before those filters): the filters' choices. `stores` counts every store's ideas. */
  facets: z.object({
    stores: z.array(ProgrammeFacet),
    tags: z.array(ProgrammeFacet),
    surfaceAreas: z.array(ProgrammeFacet),
    goals: z.array(ProgrammeFacet),
  }),
});
export type Backlog = z.infer<typeof Backlog>;

// ---------- learnings ----------

const Day = z.iso.date();

export const LearningsInput = z
  .object({
    storeId: StoreId.nullable().default(null),
    /** 'YYYY-MM-DD', both ends included, on the day of the call's data; null: open-ended. */
    since: Day.nullable().default(null),
    until: Day.nullable().default(null),
  })
  .refine((input) => input.since === null || input.until === null || input.since <= input.until, {
    error: 'The period starts after it ends.',
    path: ['since'],
  });
export type LearningsInput = z.infer<typeof LearningsInput>;

export const LearningsBreakdown = z.object({
  key: z.string(),
  concluded: z.int(),
  wins: z.int(),
  losses: z.int(),
  flat: z.int(),
  winRate: z.number().nullable(),
  medianLift: z.number().nullable(),
});

/** The figures of shared/domain/programme `learnings()`: lifts and rates are fractions. */
export const LearningsFigures = z.object({
  concluded: z.int(),
  ship: z.int(),
  keepControl: z.int(),
  noDifference: z.int(),
  /** ship ÷ concluded, and no_difference ÷ concluded; null when nothing concluded. */
  winRate: z.number().nullable(),
  noDifferenceRate: z.number().nullable(),
  medianWinnerLift: z.number().nullable(),
  medianLoserLift: z.number().nullable(),
  /** Median day of the test the call was made on (1 = the launch day). */
  medianDaysToDecision: z.number().nullable(),
  byTag: z.array(LearningsBreakdown),
  bySurfaceArea: z.array(LearningsBreakdown),
  byGoal: z.array(LearningsBreakdown),
  /** Concluded tests per month of the call ('YYYY-MM'), by call: the first chart. */
  perMonth: z.array(
    z.object({ month: z.string(), ship: z.int(), keepControl: z.int(), noDifference: z.int() }),
  ),
  /** Goal lifts in 5-point bins from −25% to +25%, the ends open (null): the second chart. */
  liftHistogram: z.array(
    z.object({ from: z.number().nullable(), to: z.number().nullable(), count: z.int() }),
  ),
});
export type LearningsFigures = z.infer<typeof LearningsFigures>;

export const ConcludedTestRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  testId: z.string(),
  title: z.string(),
  status: z.string(),
  goal: z.string(),
  /** ship, keep_control or no_difference, and the call in words. */
  call: DecisionCall,
  words: z.string(),
  /** The goal's relative lift at the call and its interval (the look's, valid under daily checks). Fractions. */
  lift: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  /** Day of the test the call was made on (1 = the launch day), and the date of that day's data. */
  days: z.int().nullable(),
  decidedOn: z.string().nullable(),
  tags: z.array(z.string()),
  surfaceArea: z.string().nullable(),
  /** As the API says (only ended tests can be marked); null when it says nothing. */
  implemented: z.boolean().nullable(),
  /** The user's one line (kept on this computer, never sent); '' when none. */
  takeaway: z.string(),
  takeawayUpdatedAt: z.string().nullable(),
});
export type ConcludedTestRow = z.infer<typeof ConcludedTestRow>;

/** A shipped winner's yearly value, as an estimate. */
export const ImpactRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  testId: z.string(),
  title: z.string(),
  goal: z.string(),
  implemented: z.boolean().nullable(),
  /** The goal's lift at the call, as measured; shrunk toward the store's programme mean, with its 95% interval. Fractions. */
  rawLift: z.number(),
  shrunkLift: z.number(),
  low: z.number(),
  high: z.number(),
  /** How much of its own evidence the test keeps (1: none taken from the mean). */
  weight: z.number(),
  /** Money a year in the store's currency (central, 95% interval); null when the store has no traffic or revenue to go by. */
  yearly: z.object({ value: z.number(), low: z.number(), high: z.number() }).nullable(),
  dailyVisitors: z.number().nullable(),
  revenuePerVisitor: z.number().nullable(),
  /** Every assumption in one line, ending "an estimate, not a measurement". */
  assumptions: z.string(),
});
export type ImpactRow = z.infer<typeof ImpactRow>;

/** What a store's lifts are shrunk toward: the mean of its concluded tests (all of them, not only the period's). */
export const ProgrammePriorView = z.object({
  storeId: StoreId,
  storeName: z.string(),
  /** The programme's mean lift (fraction), and how much true lifts differ between tests (τ, on the log scale); null with fewer than three tests. */
  meanLift: z.number().nullable(),
  spread: z.number().nullable(),
  /** Concluded tests with a measured lift it comes from. */
  tests: z.int(),
});
export type ProgrammePriorView = z.infer<typeof ProgrammePriorView>;

export const Learnings = z.object({
  storeId: StoreId.nullable(),
  /** The period as asked (null: open-ended). */
  since: z.string().nullable(),
  until: z.string().nullable(),
  asOf: z.string(),
  /** What "concluded" means, to show beside the figures. */
  definition: z.string(),
  /** Across the scope (every store, or the one). */
  figures: LearningsFigures,
  /** Per store in the scope, in the store list's order (stores with nothing concluded too). */
  stores: z.array(z.object({ storeId: StoreId, storeName: z.string(), figures: LearningsFigures })),
  /** Every concluded test in the period: latest call first. */
  tests: z.array(ConcludedTestRow),
  /** The period's shipped winners, largest yearly value first (those without one last). */
  impact: z.array(ImpactRow),
  priors: z.array(ProgrammePriorView),
  /** How the impact is estimated, in one paragraph. */
  impactNote: z.string(),
});
export type Learnings = z.infer<typeof Learnings>;

// ---------- takeaways ----------

export const MAX_TAKEAWAY_LENGTH = 200;

export const Takeaway = z.object({ text: z.string(), updatedAt: z.string().nullable() });
export type Takeaway = z.infer<typeof Takeaway>;

export const SetTakeawayInput = z.object({
  storeId: StoreId,
  testId: z.string().min(1).max(64),
  /** One line; '' (or blank) clears it. */
  text: z
    .string()
    .trim()
    .max(MAX_TAKEAWAY_LENGTH)
    .regex(/^[^\r\n\u2028\u2029]*$/, 'A takeaway is one line.'),
});

export const programme = {
  backlog: method(BacklogInput, Backlog),
  learnings: method(LearningsInput, Learnings),
  /** The user's one line on a test, in the user's own file (never sent to the API). */
  setTakeaway: method(SetTakeawayInput, Takeaway),
};
