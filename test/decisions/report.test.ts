// The `tests` report's decision columns, at its end: the calls kept on the rows, exported as they are
// (stable values, one-line reasons, fractions), and never older than the settings they are exported under.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { TestFilter, type TestRow } from '#shared/contract/index';
import { TESTS_COLUMNS } from '#core/reports/tests-report';
import type { Core } from '#core/types';
import { allTestRows, startCore, syncStore, tempDir } from '../support/core';
import { numberCell, parseCsv } from '../reports/support';

const data = tempDir('splitbook-decisions-report-');
const simulator = createSimulator({ seed: 21, stores: [{ name: 'Acme', tests: 40 }] });
let served: ServedSimulator;
let core: Core;
let storeId = '';
let files = 0;

const DECISION_COLUMNS = [
  'decision',
  'decision_reason',
  'days_to_decision',
  'goal_lift',
  'goal_p_win',
  'guardrail',
  'guardrail_verdict',
  'guardrail_lift',
  'guardrail_ci_low',
  'guardrail_ci_high',
];

beforeAll(async () => {
  served = await serveSimulator(simulator);
  core = await startCore(data.path, { clock: () => simulator.now() });
  storeId = (
    await core.services.stores.add({
      name: 'Acme',
      baseUrl: served.url,
      apiKey: simulator.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    })
  ).id;
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
}, 60_000);

afterAll(async () => {
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

async function exportTests(): Promise<Record<string, string>[]> {
  const file = join(data.path, `tests-${(files += 1)}.csv`);
  await core.reports.writeFile(
    {
      report: 'tests',
      format: 'csv',
      bom: true,
      filter: TestFilter.parse({ storeId }),
      testId: null,
    },
    file,
  );
  return parseCsv(readFileSync(file, 'utf8'));
}

async function expectColumns(records: Record<string, string>[], rows: TestRow[]): Promise<void> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  expect(records).toHaveLength(rows.length);
  for (const record of records) {
    const row = byId.get(record['test_id'] ?? '');
    expect(row, record['title']).toBeDefined();
    if (!row) continue;
    expect(record['decision'], row.title).toBe(row.decision ?? '');
    // A reason is one line with its figures; a leading "−" or "+" is text, neutralised like any.
    const reason = record['decision_reason'] ?? '';
    expect(reason.replace(/^'/, ''), row.title).toBe(row.decisionReason ?? '');
    expect(numberCell(record['days_to_decision']), row.title).toBe(row.daysToDecision);
    expect(numberCell(record['goal_lift']), row.title).toBe(row.goalLift);
    expect(numberCell(record['goal_p_win']), row.title).toBe(row.goalPWin);
    // The guardrail that decided the call (or the first watched), as the kept call has it.
    const { decision } = await core.services.tests.get({ storeId, testId: row.id });
    const guardrail = decision?.guardrails.find((c) => c.verdict === 'worse') ?? decision?.guardrails[0];
    expect(record['guardrail'] ?? '', row.title).toBe(guardrail?.metric ?? '');
    expect(record['guardrail_verdict'] ?? '', row.title).toBe(guardrail?.verdict ?? '');
    expect(numberCell(record['guardrail_lift']), row.title).toBe(guardrail?.lift ?? null);
    expect(numberCell(record['guardrail_ci_low']), row.title).toBe(guardrail?.low ?? null);
    expect(numberCell(record['guardrail_ci_high']), row.title).toBe(guardrail?.high ?? null);
  }
}

describe('the tests report', { timeout: 60_000 }, () => {
  it('ends with the decision columns, documented like the others, after every existing column', () => {
    const names = TESTS_COLUMNS.map((column) => column.name);
    expect(names.slice(-DECISION_COLUMNS.length - 1)).toEqual(['note', ...DECISION_COLUMNS]);
    for (const column of TESTS_COLUMNS.slice(-DECISION_COLUMNS.length)) {
      expect(column.source).toBe('Splitbook');
      expect(column.unit.length).toBeGreaterThan(10);
    }
    expect(TESTS_COLUMNS.find((c) => c.name === 'goal_lift')?.kind).toBe('fraction');
    expect(TESTS_COLUMNS.find((c) => c.name === 'goal_p_win')?.kind).toBe('fraction');
    expect(TESTS_COLUMNS.find((c) => c.name === 'days_to_decision')?.kind).toBe('integer');
  });

  it('exports each test’s stored call as the list shows it', async () => {
    const records = await exportTests();
    expect(Object.keys(records[0] ?? {}).slice(-DECISION_COLUMNS.length)).toEqual(DECISION_COLUMNS);
    const rows = await allTestRows(core, storeId);
    expect(rows.some((row) => row.decision !== null)).toBe(true);
    expect(rows.some((row) => row.decision === null)).toBe(true);
    await expectColumns(records, rows);
  });

  it('exports the calls made with the settings in force, even right after they changed', async () => {
    const before = await allTestRows(core, storeId);
    await core.services.decisions.setSettings({
      storeId: null,
      patch: { credibility: 0.8, minEffect: 0.2, minRuntimeDays: 3, minConversions: 10 },
      clear: [],
    });
    // No wait for decisions.changed: the export waits for the calls being made again.
    const records = await exportTests();
    const after = await allTestRows(core, storeId);
    expect(after.map((row) => row.decisionReason)).not.toEqual(
      before.map((row) => row.decisionReason),
    );
    await expectColumns(records, after);
  });
});
