// The CLI's front door: parses argv, opens the core, runs one command, turns failures into a message and an exit code.
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { ProblemError } from '../../../shared/problem';
import type { Core } from '../../core';
import { summarizeIssues } from '../../../shared/validation';
import { addDemo, addStore, exportTests, listStores, sync, type Io } from './commands';
import { API_KEY_ENV, readApiKey } from './secret-input';
import { markReviewed, printChanges } from './review-commands';

export const USAGE = `usage: splitbook-cli [--data-dir DIR] <command>

commands:
  stores                                  list stores with their sync state
  add-store --name NAME --base-url URL    add a store; the API key is read from ${API_KEY_ENV} or stdin
  add-demo                                add the simulated demo store
  sync [--store ID | --all]               sync one store, or all (the default)
  export-tests [--store ID] --out FILE    write the cached tests (of one store, or all) as CSV
  changes [--store ID] [--since DATE]     what changed since the last review (or DATE), per store
  review --store ID                       mark the store reviewed: its changes start again from now`;

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
        since: { type: 'string' },
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
    switch (command) {
      case 'stores':
        return await listStores(core, io);
      case 'add-store':
        return await addStore(core, io, {
          name: values.name ?? '',
          baseUrl: values['base-url'] ?? '',
          apiKey,
        });
      case 'add-demo':
        return await addDemo(core, io);
      case 'sync':
        return await sync(core, io, values.store ?? null);
      case 'changes':
        return await printChanges(core, io, values.store ?? null, values.since ?? null);
      case 'review':
        return await markReviewed(core, io, values.store ?? '');
      default:
        return await exportTests(core, io, values.store ?? null, values.out ?? '');
    }
  } catch (error) {
    io.err(describeFailure(error));
    return 1;
  } finally {
    await core?.close();
  }
}

function checkUsage(
  command: string | undefined,
  extra: readonly string[],
  values: {
    name?: string;
    'base-url'?: string;
    store?: string;
    all?: boolean;
    out?: string;
    since?: string;
  },
): string | null {
  if (!command) return 'No command given.';
  if (extra.length > 0) return `Unexpected argument: ${extra[0]}`;
  switch (command) {
    case 'stores':
    case 'add-demo':
      return null;
    case 'add-store':
      return values.name && values['base-url'] ? null : 'add-store needs --name and --base-url.';
    case 'sync':
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
