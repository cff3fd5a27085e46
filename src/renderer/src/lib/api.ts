// The bridge as components use it: each method resolves to its data or throws a ProblemError.
import {
  contract,
  type InputOf,
  type MethodName,
  type Namespace,
  type OutputOf,
} from '../../../shared/contract';
import { PROBLEM_TYPES, ProblemError, type Envelope, type Problem } from '../../../shared/problem';
import { getBridge } from './bridge';

export { ProblemError };

export type Api = {
  [N in Namespace]: {
    [M in MethodName<N>]: (input: InputOf<N, M>) => Promise<OutputOf<N, M>>;
  };
};

function unwrap<T>(envelope: Envelope<T>): T {
  if (envelope.ok) return envelope.data;
  throw new ProblemError(envelope.problem);
}

type Call = (input: unknown) => Promise<Envelope<unknown>>;

function createApi(): Api {
  const bridge = getBridge() as unknown as Record<string, Record<string, Call>>;
  const table: Record<string, Record<string, (input: unknown) => Promise<unknown>>> = {};
  for (const [ns, methods] of Object.entries(contract)) {
    table[ns] = Object.fromEntries(
      Object.keys(methods).map((name) => [
        name,
        async (input: unknown) => {
          const call = bridge[ns]?.[name];
          if (!call) throw new ProblemError(missingMethod(`${ns}.${name}`));
          return unwrap(await call(input));
        },
      ]),
    );
  }
  // Same keys as the contract, each wrapping the bridge method of the same name.
  return table as unknown as Api;
}

function missingMethod(channel: string): Problem {
  return {
    type: PROBLEM_TYPES.internal,
    title: 'Bridge method missing',
    status: 500,
    detail: `This host does not offer ${channel}.`,
  };
}

export const api: Api = createApi();

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
