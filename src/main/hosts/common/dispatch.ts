// The one translation every host shares: channel name + raw input -> parsed call -> Envelope (data or problem).
import { storageProblem, type Core } from '../../core';
import { summarizeIssues } from '../../../shared/validation';
import { lookupMethod } from '../../../shared/contract';
import { appProblem, ProblemError, type Envelope, type Problem } from '../../../shared/problem';

/** Calls one contract method by its channel name (`namespace.method`). Never throws. */
export async function dispatch(
  core: Core,
  channel: string,
  rawInput: unknown,
): Promise<Envelope<unknown>> {
  const method = lookupMethod(channel);
  const service = method ? findService(core, channel) : null;
  if (!method || !service) {
    return failure(
      appProblem(
        'notFound',
        404,
        'Unknown method',
        `There is no method named "${clip(channel, 100)}".`,
      ),
    );
  }
  const parsed = method.input.safeParse(rawInput);
  if (!parsed.success) {
    return failure(
      appProblem(
        'validation',
        400,
        'Invalid input',
        summarizeIssues(parsed.error.issues, { root: '(input)', max: 10 }),
      ),
    );
  }
  try {
    return { ok: true, data: await service(parsed.data) };
  } catch (error) {
    if (error instanceof ProblemError) return failure(error.problem);
    // A full, read-only or damaged disk is named the same way everywhere (core/db/storage-errors.ts).
    const storage = storageProblem(error);
    if (storage) return failure(storage);
    // The stack goes to the log only; the caller gets a fixed text, so nothing sensitive can cross.
    console.error(`[splitbook] ${channel} failed unexpectedly:`, error);
    return failure(unexpectedProblem());
  }
}

export function unexpectedProblem(): Problem {
  return appProblem(
    'internal',
    500,
    'Unexpected error',
    'Something went wrong inside Splitbook. The details were written to its log.',
  );
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
