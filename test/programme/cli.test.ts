// `programme` and the `backlog` and `learnings` CSV reports as a user runs them (tsx child process) over a
// data folder synced from the simulator over HTTP: the human output, --json, --store by name, the usage
// errors, and each report's rows against the core's own figures, takeaways included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backlog, Learnings } from '#shared/contract/index';
import { REPORTS } from '#core/reports/registry';
import { runTsx } from '../hosts/support/spawn';
import { neutralised, numberCell, parseCsv } from '../reports/support';
import { syncedProgramme, type SyncedProgramme } from './support';

const ENTRY = 'src/main/hosts/cli/main.ts';
let programme: SyncedProgramme;
let all: Learnings;
let acme: Learnings;
let since: Learnings;
let backlog: Backlog;
const SINCE = '2026-01-01';
const TAKEAWAY = 'Shorter copy wins, "=1+1" stays text';

const cli = (args: string[]) => runTsx(ENTRY, ['--data-dir', programme.data.path, ...args]);
/** The learnings as JSON says them (a bin's −0 reads 0), without the time they were read. */
const stable = ({ asOf: _asOf, ...rest }: Learnings) => JSON.parse(JSON.stringify(rest)) as unknown;

beforeAll(async () => {
  programme = await syncedProgramme('splitbook-programme-cli-');
  const { core, ids } = programme;
  const first = (
    await core.services.programme.learnings({
      storeId: ids['Acme'] ?? '',
      since: null,
      until: null,
    })
  ).tests[0];
  if (!first) throw new Error('Acme has no concluded test');
  await core.services.programme.setTakeaway({
    storeId: first.storeId,
    testId: first.testId,
    text: TAKEAWAY,
  });
  all = await core.services.programme.learnings({ storeId: null, since: null, until: null });
  acme = await core.services.programme.learnings({
    storeId: ids['Acme'] ?? '',
    since: null,
    until: null,
  });
  since = await core.services.programme.learnings({ storeId: null, since: SINCE, until: null });
  backlog = await core.services.programme.backlog({
    storeId: null,
    score: 'impact-per-effort',
    tag: null,
    surfaceArea: null,
    goal: null,
  });
  // The CLI opens the data folder itself.
  await core.close();
}, 120_000);

afterAll(async () => {
  await programme?.served.close().catch(() => undefined);
  programme?.data.remove();
});

const percent = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);

describe('the programme command', { timeout: 90_000 }, () => {
  it('prints the learnings across stores and per store: counts, win rate, lifts, breakdowns, winners, takeaways', async () => {
    const run = await cli(['programme']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Programme: all stores, every concluded test');
    const f = all.figures;
    expect(lines).toContain(
      `All stores: ${f.concluded} concluded: ${f.ship} recommended to ship, ${f.keepControl} to keep the control, ${f.noDifference} no difference; win rate ${percent(f.winRate)}, no difference ${percent(f.noDifferenceRate)}`,
    );
    for (const store of all.stores) {
      const s = store.figures;
      expect(lines).toContain(
        `${store.storeName} (${store.storeId}): ${s.concluded} concluded: ${s.ship} recommended to ship, ${s.keepControl} to keep the control, ${s.noDifference} no difference; win rate ${percent(s.winRate)}, no difference ${percent(s.noDifferenceRate)}`,
      );
    }
    for (const row of all.impact) {
      expect(run.stdout).toContain(`    ${row.title}: `);
      expect(lines).toContain(`      ${row.assumptions}`);
    }
    expect(all.impact.length).toBeGreaterThan(0);
    expect(run.stdout).toContain(`      Takeaway: ${TAKEAWAY}`);
    for (const test of all.tests) expect(run.stdout).toContain(`  ${test.words}`);
  });

  it('prints the Learnings object with --json, for one store named by its name, over a period', async () => {
    const byName = await cli(['programme', '--store', 'Acme', '--json']);
    expect(byName.code).toBe(0);
    expect(stable(JSON.parse(byName.stdout) as Learnings)).toEqual(stable(acme));
    const byId = await cli(['programme', '--json', '--store', programme.ids['Acme'] ?? '']);
    expect(stable(JSON.parse(byId.stdout) as Learnings)).toEqual(stable(acme));
    const period = await cli(['programme', '--all', '--since', SINCE, '--json']);
    expect(stable(JSON.parse(period.stdout) as Learnings)).toEqual(stable(since));
    expect(since.tests.every((t) => (t.decidedOn ?? '') >= SINCE)).toBe(true);
    const human = await cli(['programme', '--store', 'Acme', '--since', SINCE]);
    expect(human.stdout.split('\n')[0]).toBe(`Programme: Acme, tests concluded since ${SINCE}`);
  });

  it('exits 2 on a bad --since or --until, --store with --all, or a stray argument; 1 on an unknown store', async () => {
    for (const args of [
      ['programme', '--since', 'yesterday'],
      ['programme', '--since', '2026-02-30'],
      ['programme', '--until', '2026-13-01'],
      ['programme', '--since', '2026-05-01', '--until', '2026-04-01'],
      ['programme', '--store', 'Acme', '--all'],
      ['programme', 'extra'],
    ]) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: splitbook-cli');
    }
    const unknown = await cli(['programme', '--store', 'Nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Unknown store/);
  });
});

describe('the backlog and learnings reports', { timeout: 90_000 }, () => {
  const columns = (name: string) =>
    REPORTS.find((r) => r.name === name)?.columns.map((c) => c.name) ?? [];

  it('backlog: the ideas in the backlog’s default order, with their score, rank and planner days', async () => {
    const run = await cli(['export', 'backlog']);
    expect(run.code).toBe(0);
    const records = parseCsv(run.stdout);
    expect(Object.keys(records[0] ?? {})).toEqual(columns('backlog'));
    expect(records.map((r) => r['test_id'])).toEqual(backlog.rows.map((r) => r.testId));
    records.forEach((record, i) => {
      const row = backlog.rows[i];
      expect(record['store']).toBe(row?.storeName);
      expect(record['status']).toBe(row?.status);
      expect(numberCell(record['impact'])).toBe(row?.impact);
      expect(numberCell(record['effort'])).toBe(row?.effort);
      expect(numberCell(record['score'])).toBe(row?.score);
      expect(numberCell(record['rank'])).toBe(i + 1);
      expect(numberCell(record['planner_days'])).toBe(row?.plannerDays);
      expect(record['planner_text']).toBe(row?.plannerText);
      expect(record['tags']).toBe(row?.tags.join('; '));
    });
    const one = await cli(['export', 'backlog', '--store', 'Nordic', '--status', 'draft']);
    const nordic = parseCsv(one.stdout);
    expect(nordic.map((r) => r['test_id'])).toEqual(
      backlog.rows
        .filter((r) => r.storeName === 'Nordic' && r.status === 'draft')
        .map((r) => r.testId),
    );
  });

  it('learnings: every concluded test with its call, lift, takeaway, and a winner’s shrunk lift and yearly value', async () => {
    const run = await cli(['export', 'learnings']);
    expect(run.code).toBe(0);
    const records = parseCsv(run.stdout);
    expect(Object.keys(records[0] ?? {})).toEqual(columns('learnings'));
    expect(records.map((r) => r['test_id']).sort()).toEqual(all.tests.map((t) => t.testId).sort());
    for (const record of records) {
      const test = all.tests.find((t) => t.testId === record['test_id']);
      expect(record['decision']).toBe(test?.call);
      expect(record['decided_on']).toBe(test?.decidedOn);
      expect(numberCell(record['decision_day'])).toBe(test?.days);
      expect(numberCell(record['goal_lift'])).toBe(test?.lift);
      expect(numberCell(record['lift_low'])).toBe(test?.low);
      const impact = all.impact.find((row) => row.testId === record['test_id']);
      expect(numberCell(record['shrunk_lift'])).toBe(impact?.shrunkLift ?? null);
      expect(numberCell(record['yearly_value'])).toBe(impact?.yearly?.value ?? null);
      expect(record['impact_assumptions']).toBe(impact?.assumptions ?? '');
      expect(record['takeaway']).toBe(neutralised(test?.takeaway ?? null));
    }
    expect(records.filter((r) => r['takeaway'] === neutralised(TAKEAWAY))).toHaveLength(1);
    // A store's rows are the store's; the other reports keep working beside the new ones.
    const nordic = parseCsv((await cli(['export', 'learnings', '--store', 'Nordic'])).stdout);
    expect(nordic.every((r) => r['store'] === 'Nordic')).toBe(true);
    expect(nordic).toHaveLength(all.tests.filter((t) => t.storeName === 'Nordic').length);
  });
});
