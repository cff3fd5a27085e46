// The one translation every host shares: channel name + raw input -> parsed call -> Envelope (data or problem).
import { storageProblem, type Core } from '#core/index';
import { summarizeIssues } from '#shared/validation';
import { lookupMethod } from '#shared/contract/index';
import { appProblem, ProblemError, type Envelope, type Problem } from '#shared/problem';
import { serve, type Serving } from '#shared/rpc';

/** Calls one contract method by its channel name (`namespace.method`). Never throws. */
export function dispatch(
  core: Core,
  channel: string,
  rawInput: unknown,
): Promise<Envelope<unknown>> {
  return serve(core.services, channel, rawInput, CONTRACT);
}

/** The contract's rules: a method it names, its input parsed by its zod schema, errors as data. */
const CONTRACT: Serving = {
  unknown: (channel) =>
    appProblem(
      'notFound',
      404,
      'Unknown method',
      `There is no method named "${clip(channel, 100)}".`,
    ),
  input(channel, raw) {
    const method = lookupMethod(channel);
    if (!method) return { ok: false, problem: CONTRACT.unknown(channel) };
    const parsed = method.input.safeParse(raw);
    if (parsed.success) return { ok: true, data: parsed.data };
    return {
      ok: false,
      problem: appProblem(
        'validation',
        400,
        'Invalid input',
        summarizeIssues(parsed.error.issues, { root: '(input)', max: 10 }),
      ),
    };
  },
  failed(error, channel) {
    if (error instanceof ProblemError) return error.problem;
    // A full, read-only or damaged disk is named the same way everywhere (core/db/storage-errors.ts).
    const storage = storageProblem(error, null, 'user');
    if (storage) return storage;
    // The stack goes to the log only; the caller gets a fixed text, so nothing sensitive can cross.
    console.error(`[splitbook] ${channel} failed unexpectedly:`, error);
    return unexpectedProblem();
  },
};

export function unexpectedProblem(): Problem {
  return appProblem(
    'internal',
    500,
    'Unexpected error',
    'Something went wrong inside Splitbook. The details were written to its log.',
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
