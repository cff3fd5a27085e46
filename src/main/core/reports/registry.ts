// Every report by name: the one list the CLI, the window (reports.list) and the README table read.
import type { ReportInfo, ReportName } from '#shared/contract/index';
import { backlogReport } from './backlog-report';
import { dailyReport } from './daily-report';
import { learningsReport } from './learnings-report';
import { audiencesReport, campaignsReport } from './lists-report';
import { metricsReport } from './metrics-report';
import { portfolioReportDefinition } from './portfolio-report';
import { testsReport } from './tests-report';
import type { ReportDefinition } from './types';

export const REPORTS: readonly ReportDefinition[] = [
  testsReport,
  metricsReport,
  dailyReport,
  campaignsReport,
  audiencesReport,
  portfolioReportDefinition,
  backlogReport,
  learningsReport,
];

export function reportByName(name: ReportName): ReportDefinition {
  const report = REPORTS.find((r) => r.name === name);
  if (!report) throw new Error(`No report named ${name}`);
  return report;
}

/** What reports.list answers: names, descriptions and each column's unit and source. */
export function reportInfos(): ReportInfo[] {
  return REPORTS.map((r) => ({
    name: r.name,
    description: r.description,
    perTest: r.perTest,
    columns: r.columns.map((c) => ({ name: c.name, unit: c.unit, source: c.source })),
  }));
}

/** The README's table of one report's columns (scripts/report-columns prints every report). */
export function columnsMarkdown(report: ReportDefinition): string {
  const lines = ['| column | unit | source |', '| --- | --- | --- |'];
  for (const c of report.columns)
    lines.push(`| \`${c.name}\` | ${c.unit.replaceAll('|', '\\|')} | ${c.source} |`);
  return lines.join('\n');
}
