// Errors as data: the RFC 9457 shape every host uses to carry a failure to the UI.
import { z } from 'zod';

export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
});
export type Problem = z.infer<typeof Problem>;

/** Problem types the UI can act on; anything else is shown by its title and detail. */
export const PROBLEM_TYPES = {
  validation: 'splitbook:validation',
  notFound: 'splitbook:not-found',
  conflict: 'splitbook:conflict',
  offline: 'splitbook:offline',
  unauthorized: 'splitbook:unauthorized',
  keychain: 'splitbook:keychain',
  api: 'splitbook:api',
  forbidden: 'splitbook:forbidden',
  internal: 'splitbook:internal',
} as const;

/** An error that carries a problem: thrown by services, turned into data by every host. */
export class ProblemError extends Error {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(`${problem.title}: ${problem.detail}`);
    this.name = 'ProblemError';
    this.problem = problem;
  }
}

export function problem(type: keyof typeof PROBLEM_TYPES, status: number, title: string, detail: string): ProblemError {
  return new ProblemError({ type: PROBLEM_TYPES[type], status, title, detail });
}

/** What a bridge call resolves to: data or a problem, never a thrown error across the boundary. */
export type Envelope<T> = { ok: true; data: T } | { ok: false; problem: Problem };
