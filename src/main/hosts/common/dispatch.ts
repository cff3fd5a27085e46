// The one translation every host shares: channel name + raw input -> parsed call -> Envelope (data or problem).
import type { z } from 'zod';
import type { Core } from '../../core/types';
import { lookupMethod } from '../../../shared/contract';
import { PROBLEM_TYPES, ProblemError, type Envelope, type Problem } from '../../../shared/problem';

/** Calls one contract method by its channel name (`namespace.method`). Never throws. */
export async function dispatch(
  core: Core,
  channel: string,
  rawInput: unknown,
): Promise<Envelope<unknown>> {
  const method = lookupMethod(channel);
  const service = method ? findService(core, channel) : null;
  if (!method || !service) {
    return failure({
      type: PROBLEM_TYPES.notFound,
      status: 404,
      title: 'Unknown method',
      detail: `There is no method named "${clip(channel, 100)}".`,
    });
  }
  const parsed = method.input.safeParse(rawInput);
  if (!parsed.success) {
    return failure({
      type: PROBLEM_TYPES.validation,
      status: 400,
      title: 'Invalid input',
      detail: summarizeIssues(parsed.error.issues),
    });
  }
  try {
    return { ok: true, data: await service(parsed.data) };
  } catch (error) {
    if (error instanceof ProblemError) return failure(error.problem);
    // The stack goes to the log only; the caller gets a fixed text, so nothing sensitive can cross.
    console.error(`[splitbook] ${channel} failed unexpectedly:`, error);
    return failure(unexpectedProblem());
  }
}

/** "path: message" for each zod issue, joined; `(input)` names the root. */
export function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 10)
    .map(
      (issue) =>
        `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(input)'}: ${issue.message}`,
    )
    .join('; ');
}

export function unexpectedProblem(): Problem {
  return {
    type: PROBLEM_TYPES.internal,
    status: 500,
    title: 'Unexpected error',
    detail: 'Something went wrong inside Splitbook. The details were written to its log.',
  };
}

function failure(problem: Problem): Envelope<never> {
  return { ok: false, problem };
}

type Service = (input: unknown) => Promise<unknown>;

/**
 * The core's function for a channel that lookupMethod already accepted. The contract's Services
 * type guarantees its signature; TypeScript cannot follow a channel name known only at run time.
 */
function findService(core: Core, channel: string): Service | null {
  const [ns, m] = channel.split('.');
  const methods: Record<string, unknown> =
    ns && Object.hasOwn(core.services, ns) ? core.services[ns as keyof Core['services']] : {};
  const service = m && Object.hasOwn(methods, m) ? methods[m] : undefined;
  if (typeof service !== 'function') return null;
  return async (input) => (service as Service).call(methods, input);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
