// The bridge as components use it: each method resolves to its data or throws a ProblemError.
import type { InputOf, MethodName, Namespace, OutputOf } from '#shared/contract/index';
import { METHOD_NAMES } from '#shared/channels';
import { PROBLEM_TYPES, ProblemError, type Problem } from '#shared/problem';
import { createProxy, lookup } from '#shared/rpc';
import { getBridge, toEnvelope } from './bridge';

export { ProblemError };

export type Api = {
  [N in Namespace]: {
    [M in MethodName<N>]: (input: InputOf<N, M>) => Promise<OutputOf<N, M>>;
  };
};

const bridge = getBridge();

/** Calls the bridge's method of the same name and unwraps its Envelope: data, or a ProblemError. */
async function callBridge(channel: string, input: unknown): Promise<unknown> {
  const method = lookup(bridge, channel);
  if (!method) throw new ProblemError(missingMethod(channel));
  const envelope = toEnvelope(await method(input));
  if (!envelope) throw new ProblemError(unknownAnswer(channel));
  if (envelope.ok) return envelope.data;
  throw new ProblemError(envelope.problem);
}

function missingMethod(channel: string): Problem {
  return {
    type: PROBLEM_TYPES.internal,
    title: 'Bridge method missing',
    status: 500,
    detail: `This host does not offer ${channel}.`,
  };
}

function unknownAnswer(channel: string): Problem {
  return {
    type: PROBLEM_TYPES.internal,
    title: 'Unexpected answer',
    status: 500,
    detail: `The host answered ${channel} in an unknown shape.`,
  };
}

export const api: Api = createProxy<Api>(METHOD_NAMES, callBridge);

/** Anything thrown, as a Problem to show. */
export function toProblem(error: unknown): Problem {
  if (error instanceof ProblemError) return error.problem;
  return {
    type: PROBLEM_TYPES.internal,
    title: 'Something went wrong',
    status: 500,
    detail: error instanceof Error ? error.message : String(error),
  };
}
