// Every CLI command once: its usage line, its help, the check of its arguments (a wrong command line
// exits 2) and what it runs. USAGE, the argument check and the dispatch in run.ts all read this table.
import { ExportFormat, REPORT_NAMES, ReportName, TestFilter } from '#shared/contract/index';
import { dayRefusal, parseDay } from '#shared/domain/input-rules';
import type { Core } from '#core/index';
import { addDemo, addStore, exportReport, listStores, pending, sync, type Io } from './commands';
import { backup, restore } from './data-commands';
import { printDecisions } from './decisions-commands';
import { checkEditArgs, editTest } from './edit-command';
import { checkProgrammeArgs, printProgramme } from './programme-command';
import { checkReportArgs, writeReport } from './report-command';
import { markReviewed, printChanges } from './review-commands';
import { API_KEY_ENV } from './secret-input';
import { checkSettingsArgs, settingsCommand } from './settings-commands';
import {
  checkCommentArgs,
  checkNoteArgs,
  checkTeamArgs,
  commentCommand,
  commentsCommand,
  noteCommand,
  notesCommand,
  ownerCommand,
  signOffCommand,
  teamCommand,
  TEAM_TOKEN_ENV,
} from './team-commands';

/** The options every command may be given (node:util parseArgs), parsed once in run.ts. */
export const OPTIONS = {
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
  set: { type: 'string', multiple: true },
  'add-tag': { type: 'string', multiple: true },
  'remove-tag': { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  propose: { type: 'boolean', default: false },
  url: { type: 'string' },
  'team-store': { type: 'string' },
  append: { type: 'string' },
  text: { type: 'string' },
  edit: { type: 'string' },
  delete: { type: 'string' },
  detail: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export type Values = {
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
  set?: string[];
  'add-tag'?: string[];
  'remove-tag'?: string[];
  json?: boolean;
  detail?: boolean;
  propose?: boolean;
  url?: string;
  'team-store'?: string;
  append?: string;
  text?: string;
  edit?: string;
  delete?: string;
};

export type CommandContext = {
  core: Core;
  io: Io;
  /** --store resolved to a store's id (by id or exact name), or null. */
  storeId: string | null;
  values: Values;
  /** Positional arguments after the command's name. */
  extra: readonly string[];
  /** The key read from the environment or stdin, for add-store only. */
  apiKey: string;
};

export type Command = {
  /** The synopsis, as the usage lists it. */
  usage: string;
  /** What it does, one or more lines. */
  help: string;
  /** Whether --json applies. */
  json?: boolean;
  /** Whether it takes positional arguments (otherwise one is a usage error). */
  positionals?: boolean;
  /** Whether it reads an API key before opening the core. */
  readsKey?: boolean;
  /** A wrong command line, in words (exit 2), or null. */
  check?: (extra: readonly string[], values: Values) => string | null;
  run(context: CommandContext): Promise<number>;
};

const storeOrAll = (values: Values) =>
  values.store && values.all ? 'Use --store ID or --all, not both.' : null;

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
  if (format === 'xlsx' && !values.out)
    return 'An .xlsx workbook needs --out FILE (it is not text for a terminal).';
  if (format === 'csv' && report === 'all')
    return 'A CSV holds one report; name it, or use --format xlsx for all.';
  if (format === 'xlsx' && values['no-bom']) return '--no-bom applies to CSV only.';
  return null;
}

function runExport(
  { core, io, storeId, values, extra }: CommandContext,
  alias: boolean,
): Promise<number> {
  const name = extra[0];
  return exportReport(
    core,
    io,
    {
      report: alias ? 'tests' : name === 'all' ? 'all' : ReportName.parse(name),
      format: ExportFormat.parse(values.format ?? 'csv'),
      bom: !values['no-bom'],
      filter: TestFilter.parse({
        storeId,
        statuses: values.status
          ? values.status
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [],
      }),
      testId: null,
    },
    values.out ?? null,
    alias,
  );
}

export const COMMANDS: Record<string, Command> = {
  stores: {
    usage: 'stores [--json]',
    help: 'list stores with their sync state (--json: as JSON)',
    json: true,
    run: ({ core, io, values }) => listStores(core, io, values.json),
  },
  'add-store': {
    usage: 'add-store --name NAME --base-url URL',
    help: `add a store; the API key is read from ${API_KEY_ENV} or stdin`,
    readsKey: true,
    check: (_extra, values) =>
      values.name && values['base-url'] ? null : 'add-store needs --name and --base-url.',
    run: ({ core, io, values, apiKey }) =>
      addStore(core, io, { name: values.name ?? '', baseUrl: values['base-url'] ?? '', apiKey }),
  },
  'add-demo': {
    usage: 'add-demo',
    help: 'add the simulated demo store',
    run: ({ core, io }) => addDemo(core, io),
  },
  sync: {
    usage: 'sync [--store ID | --all]',
    help: 'send pending edits, then sync one store, or all (the default);\nexit 1 when an edit was refused or conflicts',
    check: (_extra, values) => storeOrAll(values),
    run: ({ core, io, storeId }) => sync(core, io, storeId),
  },
  edit: {
    usage:
      'edit --store ID --test ID --set FIELD=VALUE [--set …] [--add-tag NAME] [--remove-tag NAME] [--json]',
    help: "queue a test's edit (works offline; the next sync sends it)\nwith the window's checks; VALUE by the field's type, null\nclears; tags by name (a new name creates the tag). Exit 1\nwhen the edit is refused, with why",
    json: true,
    check: (_extra, values) => checkEditArgs(values),
    run: ({ core, io, storeId, values }) => editTest(core, io, storeId ?? '', values),
  },
  pending: {
    usage: 'pending [--store ID]',
    help: 'list edits not yet confirmed by the store (the outbox)',
    run: ({ core, io, storeId }) => pending(core, io, storeId),
  },
  decisions: {
    usage: 'decisions [--store ID | --all] [--json]',
    help: "Splitbook's call on each test's goal, by store: the calls\nneeding you first, then running tests by days to decision\n(--json: the rows as JSON)",
    json: true,
    check: (_extra, values) => storeOrAll(values),
    run: ({ core, io, storeId, values }) => printDecisions(core, io, storeId, values.json ?? false),
  },
  programme: {
    usage: 'programme [--store ID | --all] [--since DATE] [--until DATE] [--json]',
    help: "what concluded tests taught, per store and across stores:\nwin rate, lifts, days to decision, breakdowns, shipped\nwinners' estimated yearly value, your takeaways (--json: as JSON)",
    json: true,
    check: (_extra, values) => checkProgrammeArgs(values),
    run: ({ core, io, storeId, values }) =>
      printProgramme(core, io, storeId, values, values.json ?? false),
  },
  export: {
    usage:
      'export <report> [--store ID | --all] [--status S] [--out FILE] [--format csv|xlsx] [--no-bom]',
    help: `write a report of the cache; CSV goes to standard output\nwithout --out; progress on stderr. Reports:\n${REPORT_NAMES.join(', ')},\nor all (with --format xlsx: every report as a sheet).\n--status S keeps tests of that status (comma-separated list)`,
    positionals: true,
    check: checkExport,
    run: (context) => runExport(context, false),
  },
  'export-tests': {
    usage: 'export-tests [--store ID] --out FILE',
    help: 'alias of: export tests --out FILE',
    check: (_extra, values) => (values.out ? null : 'export-tests needs --out FILE.'),
    run: (context) => runExport(context, true),
  },
  report: {
    usage:
      'report --store ID [--test ID] [--since DATE] [--until DATE] --out FILE.html [--format html|text] [--detail]',
    help: "a client report: one test, or the store's tests that ran or\nended in the period (default the last 30 days), as one\nself-contained HTML file: a one-page summary, then a card a\ntest (--detail: the learnings and a full section a test);\nscreenshots embedded as it is written; --format text prints\na few bullets to paste instead. --all: every store",
    check: (_extra, values) => checkReportArgs(values),
    run: ({ core, io, storeId, values }) => writeReport(core, io, storeId, values),
  },
  changes: {
    usage: 'changes [--store ID] [--since DATE]',
    help: 'what changed since the last review (or DATE), per store',
    check: (_extra, values) =>
      values.since === undefined || parseDay(values.since) !== null
        ? null
        : dayRefusal('--since', values.since),
    run: ({ core, io, storeId, values }) => printChanges(core, io, storeId, values.since ?? null),
  },
  review: {
    usage: 'review --store ID',
    help: 'mark the store reviewed: its changes start again from now',
    check: (_extra, values) => (values.store ? null : 'review needs --store ID.'),
    run: ({ core, io, storeId }) => markReviewed(core, io, storeId ?? ''),
  },
  backup: {
    usage: 'backup --out FILE',
    help: 'write your own data to FILE while the app may run: unsent\nedits, notes, annotations, review marks, settings, decision\nsettings and plans, takeaways, and the store list (never a\nkey: keys stay in the keychain; not the cache: a sync refills it)',
    check: (_extra, values) => (values.out ? null : 'backup needs --out FILE.'),
    run: ({ core, io, values }) => backup(core, io, values.out ?? ''),
  },
  restore: {
    usage: 'restore FILE',
    help: "replace this folder's data with a backup's, after checking it\n(a Splitbook backup, whole, not from a newer Splitbook); the\nreplaced files are kept in before-restore-…/; refused while\nanother Splitbook has the folder open. Sync afterwards",
    positionals: true,
    check: (extra) =>
      extra.length === 1
        ? null
        : extra.length === 0
          ? 'restore needs a FILE.'
          : `Unexpected argument: ${extra[1]}`,
    run: ({ core, io, extra }) => restore(core, io, extra[0] ?? ''),
  },
  settings: {
    usage: 'settings [NAME VALUE] [--store ID]',
    help: "print the settings, or set one: results-freshness is\n15m, 1h (the default), 6h, 1d or manual (only when asked);\nbackground-sync (how often the app syncs by itself) is\n15m, 30m (the default), 1h, 4h or off; notifications on|off.\n--store: a store's own background-sync (default: the global one)",
    positionals: true,
    check: (extra, values) => checkSettingsArgs(extra, values.store),
    run: ({ core, io, extra, storeId }) => settingsCommand(core, io, extra, storeId),
  },
  team: {
    usage: 'team join|leave|status|share|link|unlink|sync',
    help: `the team's shared layer (docs/team.md):\n  team join --url URL   the member token from ${TEAM_TOKEN_ENV}\n                        or stdin, kept in the OS keychain\n  team leave            forget the token; the copies stay\n  team status [--json]  joined, connected, last exchange, waiting\n  team share --store S [--json]   share a store: {"teamStoreId"}\n  team link --store S --team-store ID   link a colleague's share\n  team unlink --store S  stop sharing it here; its notes stay local\n  team sync             exchange until the same as the server;\n                        exit 1 when refused or out of reach`,
    json: true,
    positionals: true,
    check: checkTeamArgs,
    run: ({ core, io, extra, storeId, values }) =>
      teamCommand(core, io, extra[0] ?? '', storeId, values),
  },
  note: {
    usage: 'note --store S --test ID --set TEXT|--append TEXT',
    help: "set or extend a test's note (a shared store's merges with\nthe team's; works offline)",
    check: (_extra, values) => checkNoteArgs(values),
    run: ({ core, io, storeId, values }) => noteCommand(core, io, storeId ?? '', values),
  },
  notes: {
    usage: 'notes --store S [--json]',
    help: "the store's notes (--json: [{testId, text, updatedAt, authors}])",
    json: true,
    check: (_extra, values) => (values.store ? null : 'notes needs --store ID.'),
    run: ({ core, io, storeId, values }) =>
      notesCommand(core, io, storeId ?? '', values.json ?? false),
  },
  comment: {
    usage: 'comment --store S --test ID --text T [--edit ID | --delete ID]',
    help: "comment on a shared store's test; --edit ID or --delete ID\nchange one of your own",
    json: true,
    check: (_extra, values) => checkCommentArgs(values),
    run: ({ core, io, storeId, values }) => commentCommand(core, io, storeId ?? '', values),
  },
  comments: {
    usage: 'comments --store S [--test ID] [--json]',
    help: "a shared store's comments, oldest first, deleted ones marked",
    json: true,
    check: (_extra, values) => (values.store ? null : 'comments needs --store ID.'),
    run: ({ core, io, storeId, values }) => commentsCommand(core, io, storeId ?? '', values),
  },
  owner: {
    usage: 'owner --store S --test ID [--set NAME] [--json]',
    help: "a shared store's test's owner: print it, or set it (--set ''\nclears); the last writer wins",
    json: true,
    check: (_extra, values) =>
      values.store && values.test ? null : 'owner needs --store ID and --test ID.',
    run: ({ core, io, storeId, values }) => ownerCommand(core, io, storeId ?? '', values),
  },
  'sign-off': {
    usage: 'sign-off --store S --test ID [--propose] [--json]',
    help: "approve the test's current call for the team (it must be\nthe call proposed, if one was); --propose proposes it\nfor a colleague to approve",
    json: true,
    check: (_extra, values) =>
      values.store && values.test ? null : 'sign-off needs --store ID and --test ID.',
    run: ({ core, io, storeId, values }) => signOffCommand(core, io, storeId ?? '', values),
  },
};

const SYNOPSIS_WIDTH = 40;

/** The usage text, built from the table: a long synopsis gets its help on the lines below it. */
export function usageText(): string {
  const lines: string[] = [];
  for (const command of Object.values(COMMANDS)) {
    const help = command.help.split('\n');
    const pad = ' '.repeat(SYNOPSIS_WIDTH);
    if (command.usage.length < SYNOPSIS_WIDTH - 1) {
      lines.push(`  ${command.usage.padEnd(SYNOPSIS_WIDTH - 2)}${help[0] ?? ''}`);
    } else {
      lines.push(`  ${command.usage}`, `${pad}${help[0] ?? ''}`);
    }
    for (const line of help.slice(1)) lines.push(`${pad}${line}`);
  }
  return [
    'usage: splitbook-cli [--data-dir DIR] <command>',
    '',
    '--store takes a store\'s id or its exact name (the command "stores" lists both).',
    '',
    'commands:',
    ...lines,
  ].join('\n');
}

/** A wrong command line, in words (exit 2), or null. */
export function usageError(
  command: string | undefined,
  extra: readonly string[],
  values: Values,
): string | null {
  if (!command) return 'No command given.';
  const entry = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!entry) return `Unknown command: ${command}`;
  if (values.json && !entry.json) {
    const withJson = Object.entries(COMMANDS)
      .filter(([, c]) => c.json)
      .map(([name]) => name);
    return `--json applies to ${withJson.slice(0, -1).join(', ')} and ${withJson.at(-1) ?? ''} only.`;
  }
  if (!entry.positionals && extra.length > 0) return `Unexpected argument: ${extra[0]}`;
  return entry.check?.(extra, values) ?? null;
}
