// The CLI's front door: parses argv, opens the core, runs one command from the command table
// (command-table.ts), turns failures into a message and an exit code.
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { ProblemError } from '#shared/problem';
import { storageProblem, type Core } from '#core/index';
import { summarizeIssues } from '#shared/validation';
import type { Io } from './commands';
import { COMMANDS, OPTIONS, usageError, usageText } from './command-table';
import { API_KEY_ENV, readApiKey } from './secret-input';
import { resolveStoreArg } from './store-arg';
import { TEAM_TOKEN_ENV } from './team-commands';

export const USAGE = usageText();

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
  if (argv.some((arg) => /^--token(=|$)/.test(arg))) {
    io.err(
      `Never pass a team token on the command line (other users can see it). Set ${TEAM_TOKEN_ENV} or pipe it on stdin.`,
    );
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
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
  const problem = usageError(command, extra, values);
  const entry =
    command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (problem || !entry) {
    io.err(`${problem ?? 'No command given.'}\n\n${USAGE}`);
    return 2;
  }

  let core: Core | null = null;
  try {
    const apiKey = entry.readsKey
      ? await readApiKey(`API key for ${values.name ?? 'the store'}: `)
      : '';
    core = await openCore(values['data-dir']);
    // What the start did to the folder (a restore cut short, finished or undone) is said first, on
    // standard error, so a command's own output (CSV on standard output) stays as it is.
    const { notice } = await core.services.app.cacheStatus({});
    if (notice) io.err(`${notice.title}: ${notice.detail}`);
    // A store named by id or by its exact name, the same way for every command.
    const storeId = values.store === undefined ? null : await resolveStoreArg(core, values.store);
    return await entry.run({ core, io, storeId, values, extra, apiKey });
  } catch (error) {
    io.err(describeFailure(error));
    return 1;
  } finally {
    await core?.close();
  }
}

/** A problem by its title and detail, invalid input by its fields; anything else by its message only. */
function describeFailure(error: unknown): string {
  if (error instanceof ProblemError) return `${error.problem.title}: ${error.problem.detail}`;
  // A busy, full, read-only or damaged file in the same words as the window's (core/db/storage-errors.ts).
  const storage = storageProblem(error, null, 'user');
  if (storage) return `${storage.title}: ${storage.detail}`;
  if (error instanceof ZodError) return `Invalid input: ${summarizeIssues(error.issues)}`;
  return `Failed: ${error instanceof Error ? error.message : String(error)}`;
}
