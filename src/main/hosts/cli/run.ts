// The CLI's front door: parses argv, opens the core, runs one command, turns failures into a message and an exit code.
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { ProblemError } from '../../../shared/problem';
import type { Core } from '../../core';
import { summarizeIssues } from '../../../shared/validation';
import { REPORT_NAMES, ExportFormat, ReportName, TestFilter } from '../../../shared/contract';
import { addDemo, addStore, exportReport, listStores, pending, sync, type Io } from './commands';
import { API_KEY_ENV, readApiKey } from './secret-input';
import { markReviewed, printChanges } from './review-commands';
import { printDecisions } from './decisions-commands';
import { checkProgrammeArgs, printProgramme } from './programme-command';
import { checkReportArgs, writeReport } from './report-command';
import { resolveStoreArg } from './store-arg';
import { checkSettingsArgs, settingsCommand } from './settings-commands';

export const USAGE = `usage: splitbook-cli [--data-dir DIR] <command>

--store takes a store's id or its exact name (the command "stores" lists both).

commands:
  stores [--json]                         list stores with their sync state (--json: as JSON)
  add-store --name NAME --base-url URL    add a store; the API key is read from ${API_KEY_ENV} or stdin
  add-demo                                add the simulated demo store
  sync [--store ID | --all]               send pending edits, then sync one store, or all (the default);
                                          exit 1 when an edit was refused or conflicts
  pending [--store ID]                    list edits not yet confirmed by the store (the outbox)
  decisions [--store ID | --all] [--json] Splitbook's call on each test's goal, by store: the calls
                                          needing you first, then running tests by days to decision
                                          (--json: the rows as JSON)
  programme [--store ID | --all] [--since DATE] [--until DATE] [--json]
                                          what concluded tests taught, per store and across stores:
                                          win rate, lifts, days to decision, breakdowns, shipped
                                          winners' estimated yearly value, your takeaways (--json: as JSON)
  export <report> [--store ID | --all] [--status S] [--out FILE] [--format csv|xlsx] [--no-bom]
                                          write a report of the cache; CSV goes to standard output
                                          without --out; progress on stderr. Reports: ${REPORT_NAMES.join(', ')},
                                          or all (with --format xlsx: every report as a sheet).
                                          --status S keeps tests of that status (comma-separated list)
  export-tests [--store ID] --out FILE    alias of: export tests --out FILE
  report --store ID [--test ID] [--since DATE] [--until DATE] --out FILE.html [--format html|text]
                                          a client report: one test, or the store's tests that ran or
                                          ended in the period (default the last 30 days), as one
                                          self-contained HTML file; --format text prints a few bullets
                                          to paste instead. --all: every store
  changes [--store ID] [--since DATE]     what changed since the last review (or DATE), per store
  review --store ID                       mark the store reviewed: its changes start again from now
  settings [NAME VALUE] [--store ID]      print the settings, or set one: results-freshness is
                                          15m, 1h (the default), 6h, 1d or manual (only when asked);
                                          background-sync (how often the app syncs by itself) is
                                          15m, 30m (the default), 1h, 4h or off; notifications on|off.
                                          --store: a store's own background-sync (default: the global one)`;

/** Exit codes: 0 done, 1 the command failed, 2 the command line was wrong. */
export async function runCli(
  argv: readonly string[],
  openCore: (dataDir: string | undefined) => Promise<Core>,
  io: Io,
): Promise<number> {
  if (argv.some((arg) => /^--(api-)?key(=|$)/.test(arg))) {
    io.err(
      `Never pass an API key on the command line (other users can see it). Set ${API_KEY_ENV} or pipe it on stdin.`,
    );
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        'data-dir': { type: 'string' },
        name: { type: 'string' },
        'base-url': { type: 'string' },
        store: { type: 'string' },
        all: { type: 'boolean', default: false },
        out: { type: 'string' },
        status: { type: 'string' },
        format: { type: 'string' },
        'no-bom': { type: 'boolean', default: false },
        since: { type: 'string' },
        until: { type: 'string' },
        test: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if (values.help || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  const usageError = checkUsage(command, extra, values);
  if (usageError) {
    io.err(`${usageError}\n\n${USAGE}`);
    return 2;
  }

  let core: Core | null = null;
  try {
    const apiKey =
      command === 'add-store'
        ? await readApiKey(`API key for ${values.name ?? 'the store'}: `)
        : '';
    core = await openCore(values['data-dir']);
    // A store named by id or by its exact name, the same way for every command.
    const storeId = values.store === undefined ? null : await resolveStoreArg(core, values.store);
    switch (command) {
      case 'stores':
        return await listStores(core, io, values.json);
      case 'add-store':
        return await addStore(core, io, {
          name: values.name ?? '',
          baseUrl: values['base-url'] ?? '',
          apiKey,
        });
      case 'add-demo':
        return await addDemo(core, io);
      case 'sync':
        return await sync(core, io, storeId);
      case 'export':
      case 'export-tests':
        return await exportReport(
          core,
          io,
          {
            report: command === 'export' ? reportArg(extra[0]) : 'tests',
            format: ExportFormat.parse(values.format ?? 'csv'),
            bom: !values['no-bom'],
            filter: TestFilter.parse({
              storeId,
              statuses: values.status ? values.status.split(',').map((s) => s.trim()).filter(Boolean) : [],
            }),
            testId: null,
          },
          values.out ?? null,
          command === 'export-tests',
        );
      case 'pending':
        return await pending(core, io, storeId);
      case 'decisions':
        return await printDecisions(core, io, storeId, values.json);
      case 'programme':
        return await printProgramme(core, io, storeId, values, values.json);
      case 'report':
        return await writeReport(core, io, storeId, values);
      case 'changes':
        return await printChanges(core, io, storeId, values.since ?? null);
      case 'review':
        return await markReviewed(core, io, storeId ?? '');
      case 'settings':
        return await settingsCommand(core, io, extra, storeId);
      default:
        return 2;
    }
  } catch (error) {
    io.err(describeFailure(error));
    return 1;
  } finally {
    await core?.close();
  }
}

type Values = {
  name?: string;
  'base-url'?: string;
  store?: string;
  all?: boolean;
  out?: string;
  format?: string;
  status?: string;
  'no-bom'?: boolean;
  since?: string;
  until?: string;
  test?: string;
  json?: boolean;
};

function reportArg(name: string | undefined): ReportName | 'all' {
  return name === 'all' ? 'all' : ReportName.parse(name);
}

function checkExport(extra: readonly string[], values: Values): string | null {
  const [report, ...rest] = extra;
  if (!report) return `export needs a report: ${REPORT_NAMES.join(', ')} or all.`;
  if (rest.length > 0) return `Unexpected argument: ${rest[0]}`;
  if (report !== 'all' && !ReportName.safeParse(report).success) {
    return `Unknown report: ${report}. Reports: ${REPORT_NAMES.join(', ')}, all.`;
  }
  if (values.store && values.all) return 'Use --store ID or --all, not both.';
  const format = values.format ?? 'csv';
  if (!ExportFormat.safeParse(format).success) return `Unknown format: ${format}. Use csv or xlsx.`;
  if (format === 'xlsx' && !values.out) return 'An .xlsx workbook needs --out FILE (it is not text for a terminal).';
  if (format === 'csv' && report === 'all') return 'A CSV holds one report; name it, or use --format xlsx for all.';
  if (format === 'xlsx' && values['no-bom']) return '--no-bom applies to CSV only.';
  return null;
}

function checkUsage(command: string | undefined, extra: readonly string[], values: Values): string | null {
  if (!command) return 'No command given.';
  if (values.json && command !== 'stores' && command !== 'decisions' && command !== 'programme') {
    return '--json applies to stores, decisions and programme only.';
  }
  if (command === 'export') return checkExport(extra, values);
  if (command === 'settings') return checkSettingsArgs(extra, values.store);
  if (command === 'report') return extra.length > 0 ? `Unexpected argument: ${extra[0]}` : checkReportArgs(values);
  if (command === 'programme') return extra.length > 0 ? `Unexpected argument: ${extra[0]}` : checkProgrammeArgs(values);
  if (extra.length > 0) return `Unexpected argument: ${extra[0]}`;
  switch (command) {
    case 'stores':
    case 'add-demo':
    case 'pending':
      return null;
    case 'add-store':
      return values.name && values['base-url'] ? null : 'add-store needs --name and --base-url.';
    case 'sync':
    case 'decisions':
      return values.store && values.all ? 'Use --store ID or --all, not both.' : null;
    case 'export-tests':
      return values.out ? null : 'export-tests needs --out FILE.';
    case 'changes':
      return values.since === undefined || !Number.isNaN(Date.parse(values.since))
        ? null
        : `--since needs a date (YYYY-MM-DD), not ${values.since}.`;
    case 'review':
      return values.store ? null : 'review needs --store ID.';
    default:
      return `Unknown command: ${command}`;
  }
}

/** A problem by its title and detail, invalid input by its fields; anything else by its message only. */
function describeFailure(error: unknown): string {
  if (error instanceof ProblemError) return `${error.problem.title}: ${error.problem.detail}`;
  if (error instanceof ZodError) return `Invalid input: ${summarizeIssues(error.issues)}`;
  return `Failed: ${error instanceof Error ? error.message : String(error)}`;
}
