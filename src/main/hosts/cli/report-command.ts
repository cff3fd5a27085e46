// The `report` command: a client report of one test or of a store (or every store) over a period, as
// one self-contained HTML file, or its plain-text summary on standard output (--format text).
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Core } from '#core/index';
import { dayRefusal, parseDay } from '#shared/domain/input-rules';
import type { Io } from './commands';

export type ReportArgs = {
  store?: string;
  all?: boolean;
  test?: string;
  since?: string;
  until?: string;
  out?: string;
  format?: string;
  /** A store report's full sections (the learnings page and about two pages a test). */
  detail?: boolean;
};

/** The usage errors of `report` (exit 2), or null. */
export function checkReportArgs(values: ReportArgs): string | null {
  if (values.store === undefined && !values.all) return 'report needs --store ID|NAME (or --all).';
  if (values.store !== undefined && values.all) return 'Use --store ID or --all, not both.';
  if (values.test !== undefined && values.store === undefined)
    return "--test needs the test's --store.";
  for (const flag of ['since', 'until'] as const) {
    const value = values[flag];
    if (value !== undefined && parseDay(value) === null) return dayRefusal(`--${flag}`, value);
  }
  if (values.since && values.until && values.since > values.until)
    return '--since is after --until.';
  const format = values.format ?? 'html';
  if (format !== 'html' && format !== 'text')
    return `Unknown format: ${format}. Use html (the default) or text.`;
  if (format === 'html' && values.out === undefined) return 'An HTML report needs --out FILE.html.';
  if (values.detail && format === 'text') return '--detail applies to the HTML report only.';
  if (values.detail && values.test !== undefined)
    return "--detail applies to a store's report: a test's report is always its full section.";
  return null;
}

export async function writeReport(
  core: Core,
  io: Io,
  storeId: string | null,
  values: ReportArgs,
): Promise<number> {
  const scope = {
    storeId,
    testId: values.test ?? null,
    since: values.since ?? null,
    until: values.until ?? null,
  };
  if ((values.format ?? 'html') === 'text') {
    const report = await core.reports.client(scope, 'text');
    io.out(report.content);
    return 0;
  }
  const out = resolve(values.out ?? '');
  const folder = dirname(out);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    io.err(`Cannot write ${out}: the folder ${folder} does not exist.`);
    return 1;
  }
  const report = await core.reports.client(scope, 'html', out, { detail: values.detail === true });
  io.err(
    `Wrote ${out}: ${report.tests} test${report.tests === 1 ? '' : 's'}, ${report.period.since} to ${report.period.until}.`,
  );
  return 0;
}
