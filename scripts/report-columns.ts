// Prints the README's "Reports" column tables from the report registry (npx tsx scripts/report-columns.ts),
// so the documentation is generated from the same list the CLI and the window use.
import { REPORTS } from '../src/main/core/reports/registry';
import { columnsMarkdown } from '../src/main/core/reports/registry';

for (const report of REPORTS) {
  console.log(`#### \`${report.name}\`\n\n${report.description}\n\n${columnsMarkdown(report)}\n`);
}
