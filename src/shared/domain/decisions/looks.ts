// The looks of a call: one per completed day of the test that adds information, each judged with the
// settings in force that day — the group sequential boundary of the test's design while it holds, then
// (after a settings change once the test had data) an always-valid check on the budget left — and
// stopped at the first that settles: a crossing (ship or keep the control, or no difference when even
// the crossing interval lies inside the band), an interval inside the band (no difference), or the
// plan's final look with the sample for 80% power. Also the looks ahead, projected at the recent
// traffic, for the forecast.
import { dateOfDayNumber, dayNumberOf } from '../statistics/daily';
import {
  addSide,
  EMPTY_SUMS,
  estimateOf,
  eventsOf,
  halfWidth,
  zOf,
  type Estimate,
  type GoalMetric,
  type SideSums,
} from './estimates';
import type { PlannedLook } from './forecast';
import type { Interval } from './forward';
import type { DecisionSettings, PlanSource } from './schemas';
import {
  informationFor,
  mixtureHalfWidth,
  mixtureTuning,
  obrienFlemingSpent,
  SequentialBoundaries,
  upperQuantile,
} from './sequential';

/** The power a test should have to detect the minimum effect. */
export const TARGET_POWER = 0.8;
/** The days of traffic a projection and the information fraction go by. */
export const RECENT_DAYS = 7;

/** A completed day of the looks: each side's counts that day. */
export type DecisionDay = { dayNumber: number; control: SideSums; variant: SideSums };

/**
 * A change of the settings after a test had data, as the core records it: until `from` (exclusive,
 * 'YYYY-MM-DD'), `settings` were in force; `source` says where the change was made.
 */
export type SettingsChange = {
  from: string;
  settings: DecisionSettings;
  planSource: Exclude<PlanSource, 'automatically-end-at'>;
  source: 'settings' | 'store' | 'test';
};

export type Look = {
  day: number;
  dayNumber: number;
  control: SideSums;
  variant: SideSums;
  /** The days through this look (for revenue estimates and guardrails). */
  through: number;
  estimate: Estimate;
  /** The statistic on the normal scale. */
  z: number;
  /** Information the boundaries go by (1/Var for rates; visitors or orders for revenue). */
  walkInfo: number;
  boundary: number;
  infoFraction: number;
  spent: number;
  method: 'group-sequential' | 'always-valid';
  settings: DecisionSettings;
};

export type Settled = { look: Look; kind: 'crossing' | 'small' | 'equivalent' | 'powered' };

/** The planned length: automaticallyEndAt when it lies after the start, else the setting. */
export function planOf(
  automaticallyEndAt: string | null,
  startDay: number,
  settings: DecisionSettings,
  source: Exclude<PlanSource, 'automatically-end-at'> | undefined,
): { days: number; source: PlanSource } {
  const end = automaticallyEndAt === null ? Number.NaN : Date.parse(automaticallyEndAt);
  if (Number.isFinite(end)) {
    const planned = Math.ceil((end - startDay * 86_400_000) / 86_400_000);
    if (planned >= 1) return { days: planned, source: 'automatically-end-at' };
  }
  return { days: settings.plannedDays, source: source ?? 'setting' };
}

/** The final boundary of a plan with daily looks from the minimum runtime, by (plan, first look, α). */
const finalBoundaries = new Map<string, number>();

export function finalBoundaryFor(plannedDays: number, firstDay: number, alpha: number): number {
  const first = Math.min(Math.max(firstDay, 1), plannedDays);
  const key = `${plannedDays}:${first}:${alpha}`;
  const known = finalBoundaries.get(key);
  if (known !== undefined) return known;
  const walk = new SequentialBoundaries(alpha);
  let c = Infinity;
  for (let day = first; day <= plannedDays; day++) {
    const t = day / plannedDays;
    if (!walk.grows(t, day === plannedDays)) continue;
    const boundary = walk.look(t, obrienFlemingSpent(t, alpha));
    if (Number.isFinite(boundary)) c = boundary;
  }
  finalBoundaries.set(key, c);
  return c;
}

/** The information that detects the settings' minimum effect with 80% power at a plan's final boundary. */
export function neededInformation(settings: DecisionSettings, plannedDays: number): number {
  const alpha = 1 - settings.credibility;
  return informationFor(Math.log1p(settings.minEffect), alpha, TARGET_POWER, finalBoundaryFor(plannedDays, settings.minRuntimeDays, alpha));
}

/** The band of lifts too small to matter, on the log scale. */
export function bandOf(settings: DecisionSettings): Interval {
  return { low: Math.log1p(-settings.minEffect), high: Math.log1p(settings.minEffect) };
}

/** The interval (relative lifts) of an estimate at boundary c (the fixed-look 95% when none applies). */
export function intervalAt(estimate: Estimate, c: number): { low: number; high: number } {
  const half = halfWidth(estimate, Number.isFinite(c) ? c : upperQuantile(0.025));
  return { low: Math.expm1(estimate.theta - half), high: Math.expm1(estimate.theta + half) };
}

export function insideBand(interval: { low: number; high: number }, minEffect: number): boolean {
  return interval.low > -minEffect && interval.high < minEffect;
}

/**
 * The |z| an always-valid check needs on the budget `left`: the normal-mixture sequence, tuned to be
 * tightest at the information the plan expects by its end (visitors so far → planned visitors).
 */
export function alwaysValidBoundary(variance: number, visitors: number, plannedVisitors: number, left: number): number {
  if (!(left > 1e-9)) return Infinity;
  const tau2 = mixtureTuning(variance * (visitors / Math.max(plannedVisitors, visitors)), left);
  return mixtureHalfWidth(variance, tau2, left) / Math.sqrt(variance);
}

/** Mean visitors a day (both sides) over the last RECENT_DAYS days that had any (a paused day is not traffic). */
export function recentDailyVisitors(seen: readonly DecisionDay[]): number {
  const recent: DecisionDay[] = [];
  for (let k = seen.length - 1; k >= 0 && recent.length < RECENT_DAYS; k--) {
    const day = seen[k];
    if (day !== undefined && day.control.visitors + day.variant.visitors > 0) recent.push(day);
  }
  if (recent.length === 0) return 0;
  return recent.reduce((sum, day) => sum + day.control.visitors + day.variant.visitors, 0) / recent.length;
}

/** What the boundaries count as information: 1/Var for rates, the denominators so far for revenue. */
function walkInformation(metric: GoalMetric, estimate: Estimate, control: SideSums, variant: SideSums): number {
  if (metric === 'rpv') return control.visitors + variant.visitors;
  if (metric === 'aov') return control.orders + variant.orders;
  return 1 / estimate.variance;
}

/** Whether a day adds information on both sides: visitors (and, for revenue, orders). */
function dayCounts(metric: GoalMetric, day: DecisionDay): boolean {
  const has = (side: SideSums) => side.visitors > 0 && (metric === 'rpv' || metric === 'aov' ? side.orders > 0 : true);
  return has(day.control) && has(day.variant);
}

export type WalkInput = {
  metric: GoalMetric;
  days: readonly DecisionDay[];
  startDay: number | null;
  automaticallyEndAt: string | null;
  /** The settings in force now, and where their planned length comes from. */
  settings: DecisionSettings;
  planSource: Exclude<PlanSource, 'automatically-end-at'> | undefined;
  /** Settings changes, any order; those before the test's first day of data are its design. */
  changes: readonly SettingsChange[];
  /** Whether any guardrail is watched (then a ship's later looks are walked for them). */
  watching: boolean;
};

export type Walked = {
  /** The settings the test was designed with (in force at its first day of data) and its plan's days: the spending's. */
  design: DecisionSettings;
  designPlan: { days: number; source: PlanSource } | null;
  designDays: number;
  /** The plan now (the design's unless a change moved it). */
  plan: { days: number; source: PlanSource } | null;
  plannedDays: number;
  alpha: number;
  /** The changes that apply (after the first day of data), oldest first. */
  changes: SettingsChange[];
  walk: SequentialBoundaries;
  looks: Look[];
  settled: Settled | null;
  /**
   * The design's looks after a crossing, while its plan lasts: the goal is settled, but a guardrail is
   * watched on at each with that look's own boundary (repeated intervals hold at every look together).
   */
  after: Look[];
  /** Sums and days through the last completed day. */
  control: SideSums;
  variant: SideSums;
  seen: DecisionDay[];
  lastDay: number;
};

/** The settings in force on a day: those before the first change after it, else the current ones. */
export function settingsOn(dayNumber: number, changes: readonly SettingsChange[], current: DecisionSettings): DecisionSettings {
  for (const change of changes) {
    const from = dayNumberOf(change.from);
    if (from !== null && dayNumber < from) return change.settings;
  }
  return current;
}

export function walkLooks(input: WalkInput): Walked {
  const { metric, days, startDay, settings } = input;
  const firstData = days.find((day) => day.control.visitors + day.variant.visitors > 0)?.dayNumber ?? null;
  const changes = input.changes
    .filter((change) => {
      const from = dayNumberOf(change.from);
      return firstData !== null && from !== null && from > firstData;
    })
    .slice()
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const first = changes[0];
  const design = first?.settings ?? settings;
  const designSource = first?.planSource ?? input.planSource;
  const designPlan = startDay === null ? null : planOf(input.automaticallyEndAt, startDay, design, designSource);
  const designDays = designPlan?.days ?? design.plannedDays;
  const plan = startDay === null ? null : planOf(input.automaticallyEndAt, startDay, settings, input.planSource);
  const plannedDays = plan?.days ?? settings.plannedDays;
  const alpha = 1 - design.credibility;
  const designNeeded = neededInformation(design, designDays);
  const firstChange = first === undefined ? Infinity : (dayNumberOf(first.from) ?? Infinity);
  const walk = new SequentialBoundaries(alpha);
  const looks: Look[] = [];
  let control = EMPTY_SUMS;
  let variant = EMPTY_SUMS;
  const seen: DecisionDay[] = [];
  let settled: Settled | null = null;
  const after: Look[] = [];
  let lastDay = 0;
  for (let k = 0; k < days.length; k++) {
    const day = days[k];
    if (day === undefined) continue;
    seen.push(day);
    control = addSide(control, day.control);
    variant = addSide(variant, day.variant);
    const dayIndex = startDay === null ? k + 1 : Math.max(1, day.dayNumber - startDay + 1);
    lastDay = dayIndex;
    // After a call, only a ship whose guardrails are watched needs the design's later boundaries.
    if (settled !== null && (settled.kind !== 'crossing' || settled.look.z <= 0 || !input.watching)) continue;
    const inForce = settingsOn(day.dayNumber, changes, settings);
    if (dayIndex < inForce.minRuntimeDays) continue;
    if (Math.min(eventsOf(control, metric), eventsOf(variant, metric)) < Math.max(1, inForce.minConversions)) continue;
    if (!dayCounts(metric, day)) continue;
    const estimate = estimateOf(metric, control, variant, seen);
    if (estimate === null || !(estimate.variance > 0)) continue;
    const visitors = control.visitors + variant.visitors;
    const recent = recentDailyVisitors(seen);
    const walkInfo = walkInformation(metric, estimate, control, variant);
    let look: Look;
    if (settled !== null) {
      // Watching the guardrails after a crossing: the design's boundaries only.
      if (day.dayNumber >= firstChange || dayIndex > designDays || !walk.grows(walkInfo, dayIndex >= designDays)) continue;
      const infoFraction = dayIndex >= designDays ? 1 : visitors / (visitors + recent * (designDays - dayIndex));
      const boundary = walk.look(walkInfo, obrienFlemingSpent(infoFraction, alpha));
      after.push({ day: dayIndex, dayNumber: day.dayNumber, control, variant, through: seen.length, estimate, z: zOf(estimate), walkInfo, boundary, infoFraction, spent: walk.spent, method: 'group-sequential', settings: inForce });
      continue;
    }
    if (day.dayNumber < firstChange) {
      // Past the plan's end nothing is left to spend: no more looks of the design.
      if (dayIndex > designDays || !walk.grows(walkInfo, dayIndex >= designDays)) continue;
      const infoFraction = dayIndex >= designDays ? 1 : visitors / (visitors + recent * (designDays - dayIndex));
      const boundary = walk.look(walkInfo, obrienFlemingSpent(infoFraction, alpha));
      look = { day: dayIndex, dayNumber: day.dayNumber, control, variant, through: seen.length, estimate, z: zOf(estimate), walkInfo, boundary, infoFraction, spent: walk.spent, method: 'group-sequential', settings: inForce };
    } else {
      const planned = startDay === null ? inForce.plannedDays : planOf(input.automaticallyEndAt, startDay, inForce, input.planSource).days;
      const plannedVisitors = visitors + recent * Math.max(0, planned - dayIndex);
      const left = 1 - inForce.credibility - walk.spent;
      const boundary = alwaysValidBoundary(estimate.variance, visitors, plannedVisitors, left);
      look = { day: dayIndex, dayNumber: day.dayNumber, control, variant, through: seen.length, estimate, z: zOf(estimate), walkInfo, boundary, infoFraction: visitors / Math.max(plannedVisitors, visitors), spent: walk.spent, method: 'always-valid', settings: inForce };
    }
    looks.push(look);
    const interval = intervalAt(look.estimate, look.boundary);
    const inside = Number.isFinite(look.boundary) && insideBand(interval, inForce.minEffect);
    if (Math.abs(look.z) >= look.boundary) settled = { look, kind: inside ? 'small' : 'crossing' };
    else if (inside) settled = { look, kind: 'equivalent' };
    else if (look.method === 'group-sequential' && look.infoFraction >= 1 && 1 / estimate.variance >= designNeeded) settled = { look, kind: 'powered' };
  }
  return { design, designPlan, designDays, plan, plannedDays, alpha, changes, walk, looks, settled, after, control, variant, seen, lastDay };
}

/** The look's interval at its own boundary, or at the last finite one before it when it has none. */
export function lookInterval(walked: Walked, look: Look): { low: number; high: number } {
  if (Number.isFinite(look.boundary)) return intervalAt(look.estimate, look.boundary);
  const finite = [...walked.looks].reverse().find((l) => l.dayNumber <= look.dayNumber && Number.isFinite(l.boundary));
  return intervalAt(look.estimate, finite?.boundary ?? Infinity);
}

/** What a projection goes by: the recent traffic, the information a visitor adds, the control's share. */
export type Traffic = { perDay: number; infoPerVisitor: number; share: number };

/** The recent traffic and information per visitor (both sides), from the last look or the pooled rate; null without either. */
export function trafficOf(walked: Walked, metric: GoalMetric): Traffic | null {
  const { seen, control, variant } = walked;
  const perDay = recentDailyVisitors(seen);
  const visitors = control.visitors + variant.visitors;
  if (!(perDay > 0) || !(visitors > 0)) return null;
  const share = control.visitors / visitors;
  const last = walked.looks[walked.looks.length - 1];
  if (last !== undefined) return { perDay, share, infoPerVisitor: 1 / last.estimate.variance / (last.control.visitors + last.variant.visitors) };
  const now = currentOf(walked, metric);
  if (now !== null) return { perDay, share, infoPerVisitor: 1 / now.variance / visitors };
  const events = eventsOf(control, metric) + eventsOf(variant, metric);
  if (!(events > 0) || !(share > 0 && share < 1)) return null;
  const rate = events / visitors;
  // Before any look the spread of revenue is unknown: order values as spread as their mean (CV 1).
  const unit = metric === 'aov' ? 1 / rate : metric === 'rpv' ? 2 / rate : rate < 1 ? (1 - rate) / rate : 1 / rate;
  return { perDay, share, infoPerVisitor: 1 / (unit * (1 / share + 1 / (1 - share))) };
}

export type Projection = {
  /** Future looks, on the estimate's information scale (1/Var). */
  looks: PlannedLook[];
  traffic: Traffic;
  /** The score and information the forecast starts from (0, 0 before any look). */
  start: number;
  startInfo: number;
};

/**
 * The looks ahead through day `horizon`, from the last look (or from nothing while the guards do not
 * hold yet), if traffic goes on at its recent rate and the rates stay as they are: each future day's
 * information, its boundary (the design's walk extended day by day, or the always-valid one after a
 * settings change), the band, and whether the plan's final look settles every path. Null without
 * traffic or rates to go by.
 */
export function projectLooks(walked: Walked, metric: GoalMetric, settings: DecisionSettings, horizon: number): Projection | null {
  const traffic = trafficOf(walked, metric);
  if (traffic === null) return null;
  const { control, variant, plannedDays, designDays, alpha, design, lastDay } = walked;
  const { perDay, infoPerVisitor, share } = traffic;
  const visitorsNow = control.visitors + variant.visitors;
  const rateA = control.visitors > 0 ? eventsOf(control, metric) / control.visitors : 0;
  const rateB = variant.visitors > 0 ? eventsOf(variant, metric) / variant.visitors : 0;
  const ordersPerVisitor = visitorsNow > 0 ? (control.orders + variant.orders) / visitorsNow : 0;
  const changed = walked.changes.length > 0;
  const walk = walked.walk.clone();
  const band = bandOf(settings);
  const needed = neededInformation(design, designDays);
  const looks: PlannedLook[] = [];
  for (let day = lastDay + 1; day <= Math.min(horizon, plannedDays); day++) {
    const added = perDay * (day - lastDay);
    const visitors = visitorsNow + added;
    const info = infoPerVisitor * visitors;
    if (day < settings.minRuntimeDays) continue;
    const eventsA = eventsOf(control, metric) + rateA * share * added;
    const eventsB = eventsOf(variant, metric) + rateB * (1 - share) * added;
    if (Math.min(eventsA, eventsB) < Math.max(1, settings.minConversions)) continue;
    if (changed) {
      const plannedVisitors = visitors + perDay * Math.max(0, plannedDays - day);
      const boundary = alwaysValidBoundary(1 / info, visitors, plannedVisitors, 1 - settings.credibility - walk.spent);
      looks.push({ day, info, boundary, band, settlesAll: false });
      continue;
    }
    const walkInfo = metric === 'rpv' ? visitors : metric === 'aov' ? ordersPerVisitor * visitors : info;
    if (!walk.grows(walkInfo, day >= designDays)) continue;
    const infoFraction = day >= designDays ? 1 : visitors / (visitors + perDay * (designDays - day));
    const boundary = walk.look(walkInfo, obrienFlemingSpent(infoFraction, alpha));
    looks.push({ day, info, boundary, band, settlesAll: day >= designDays && info >= needed });
  }
  // From the last look, or (before the guards hold) from the days so far: what the data already say.
  const from = walked.looks[walked.looks.length - 1]?.estimate ?? currentOf(walked, metric);
  const startInfo = from === null ? 0 : 1 / from.variance;
  const start = from === null ? 0 : zOf(from) * Math.sqrt(startInfo);
  return { looks, traffic, start, startInfo };
}

/** The estimate from every completed day so far (before any look: not yet a look, but what the data say). */
function currentOf(walked: Walked, metric: GoalMetric): Estimate | null {
  const estimate = estimateOf(metric, walked.control, walked.variant, walked.seen);
  return estimate !== null && estimate.variance > 0 ? estimate : null;
}

/** Information (1/Var) the test would have on `day` at its recent traffic. */
export function informationOn(walked: Walked, traffic: Traffic, day: number): number {
  const visitors = walked.control.visitors + walked.variant.visitors + traffic.perDay * Math.max(0, day - walked.lastDay);
  return traffic.infoPerVisitor * visitors;
}

/** Days from the start a test needs to reach `neededInfo` at its recent traffic (guards included), or null. */
export function neededDaysFor(walked: Walked, metric: GoalMetric, neededInfo: number, settings: DecisionSettings): number | null {
  const traffic = trafficOf(walked, metric);
  if (traffic === null) return null;
  const { seen, control, variant, lastDay } = walked;
  const visitors = control.visitors + variant.visitors;
  let days = lastDay + Math.max(0, Math.ceil((neededInfo / traffic.infoPerVisitor - visitors) / traffic.perDay));
  const recent = seen.slice(-RECENT_DAYS);
  for (const side of ['control', 'variant'] as const) {
    const have = eventsOf(side === 'control' ? control : variant, metric);
    if (have >= settings.minConversions) continue;
    const perDayEvents = recent.reduce((sum, day) => sum + eventsOf(day[side], metric), 0) / Math.max(1, recent.length);
    if (!(perDayEvents > 0)) return null;
    days = Math.max(days, lastDay + Math.ceil((settings.minConversions - have) / perDayEvents));
  }
  return Math.max(days, settings.minRuntimeDays);
}

export { dateOfDayNumber };
