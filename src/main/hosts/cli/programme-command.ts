// The `programme` command: what concluded tests taught over a period, per store and across stores — the
// counts by call, win rate, typical lifts, time to decision, the breakdowns, shipped winners' estimated
// yearly value and the user's takeaways. `--json` prints the Learnings object itself.
import type { ImpactRow, Learnings, LearningsFigures } from '#shared/contract/index';
import type { Core } from '#core/index';
import { dayRefusal, parseDay } from '#shared/domain/input-rules';
import type { Io } from './commands';

export type ProgrammeArgs = { since?: string; until?: string };

/** The usage errors of `programme` (exit 2), or null. */
export function checkProgrammeArgs(
  values: ProgrammeArgs & { store?: string; all?: boolean },
): string | null {
  if (values.store !== undefined && values.all) return 'Use --store ID or --all, not both.';
  for (const flag of ['since', 'until'] as const) {
    const value = values[flag];
    if (value !== undefined && parseDay(value) === null) return dayRefusal(`--${flag}`, value);
  }
  if (values.since && values.until && values.since > values.until)
    return '--since is after --until.';
  return null;
}

export async function printProgramme(
  core: Core,
  io: Io,
  storeId: string | null,
  args: ProgrammeArgs,
  json: boolean,
): Promise<number> {
  const learnings = await core.services.programme.learnings({
    storeId,
    since: args.since ?? null,
    until: args.until ?? null,
  });
  if (json) {
    io.out(JSON.stringify(learnings, null, 2));
    return 0;
  }
  if (learnings.stores.length === 0) {
    io.out('No stores yet.');
    return 0;
  }
  io.out(
    `Programme: ${storeId === null ? 'all stores' : (learnings.stores[0]?.storeName ?? '')}, ${periodWords(learnings)}`,
  );
  if (storeId === null && learnings.stores.length > 1) {
    io.out('');
    io.out(`All stores: ${headline(learnings.figures)}`);
    for (const line of details(learnings.figures, false)) io.out(`  ${line}`);
  }
  for (const store of learnings.stores) {
    io.out('');
    io.out(`${store.storeName} (${store.storeId}): ${headline(store.figures)}`);
    for (const line of details(store.figures, true)) io.out(`  ${line}`);
    const prior = learnings.priors.find((p) => p.storeId === store.storeId);
    const winners = learnings.impact.filter((row) => row.storeId === store.storeId);
    if (winners.length > 0) {
      io.out(
        `  Shipped winners, yearly value (an estimate${prior?.meanLift == null ? '' : `; lifts shrunk toward the store's mean of ${signed(prior.meanLift)} over ${prior.tests} concluded tests`}):`,
      );
      for (const row of winners) {
        io.out(`    ${oneLine(row.title)}: ${impactWords(row)}`);
        io.out(`      ${row.assumptions}`);
      }
    }
    const tests = learnings.tests.filter((row) => row.storeId === store.storeId);
    if (tests.length > 0) {
      io.out('  Concluded tests, latest first:');
      for (const row of tests) {
        const lift = row.lift === null ? '' : ` ${signed(row.lift)}`;
        io.out(`    ${row.decidedOn ?? '          '}  ${row.words}${lift}: ${oneLine(row.title)}`);
        if (row.takeaway !== '') io.out(`      Takeaway: ${row.takeaway}`);
      }
    }
  }
  return 0;
}

function periodWords(learnings: Learnings): string {
  const { since, until } = learnings;
  if (since === null && until === null) return 'every concluded test';
  if (since === null) return `tests concluded up to ${until}`;
  if (until === null) return `tests concluded since ${since}`;
  return `tests concluded ${since} to ${until}`;
}

/** "12 concluded: 5 recommended to ship, 4 to keep the control, 3 no difference; win rate 42%, no difference 25%". */
function headline(f: LearningsFigures): string {
  if (f.concluded === 0) return 'no concluded test in the period';
  return (
    `${f.concluded} concluded: ${f.ship} recommended to ship, ${f.keepControl} to keep the control, ${f.noDifference} no difference; ` +
    `win rate ${percent(f.winRate)}, no difference ${percent(f.noDifferenceRate)}`
  );
}

function details(f: LearningsFigures, breakdowns: boolean): string[] {
  if (f.concluded === 0) return [];
  const lines = [
    `Median goal lift: winners ${maybeSigned(f.medianWinnerLift)}, losers ${maybeSigned(f.medianLoserLift)}; ` +
      `median ${f.medianDaysToDecision === null ? '–' : round(f.medianDaysToDecision)} days from launch to decision`,
  ];
  if (!breakdowns) return lines;
  const part = (label: string, rows: LearningsFigures['byTag']) =>
    `${label}: ${rows.map((b) => `${oneLine(b.key)} ${b.concluded} (${b.wins} won, ${percent(b.winRate)})`).join(' · ')}`;
  lines.push(
    part('By tag', f.byTag),
    part('By surface area', f.bySurfaceArea),
    part('By goal', f.byGoal),
  );
  lines.push(
    `Per month: ${f.perMonth.map((m) => `${m.month} ${m.ship + m.keepControl + m.noDifference} (${m.ship} ship, ${m.keepControl} keep the control, ${m.noDifference} no difference)`).join(' · ')}`,
  );
  return lines;
}

function impactWords(row: ImpactRow): string {
  const lift = `${signed(row.rawLift)} measured, ${signed(row.shrunkLift)} shrunk (95% ${signed(row.low)} to ${signed(row.high)})`;
  const value =
    row.yearly === null
      ? 'no yearly value (no traffic to go by)'
      : `about ${money(row.yearly.value)} a year (${money(row.yearly.low)} to ${money(row.yearly.high)})`;
  const implemented =
    row.implemented === null ? '' : row.implemented ? ', implemented' : ', not implemented';
  return `${lift}; ${value}${implemented}`;
}

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ');
const round = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const percent = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);
const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x * 100).toFixed(1)}%`;
const maybeSigned = (x: number | null) => (x === null ? '–' : signed(x));
const money = (n: number) =>
  `${n < 0 ? '−' : ''}${Math.abs(n).toLocaleString('en-US', { maximumFractionDigits: 0 })}`;
