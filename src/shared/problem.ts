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
  /** The cache file is damaged: the UI offers to rebuild it from the server (app.rebuildCache). */
  corrupt: 'splitbook:corrupt',
  /** The data folder or a database in it cannot be written: browsing goes on, syncing cannot. */
  readOnly: 'splitbook:read-only',
  /** A store's answer exceeded what Splitbook reads from one response. */
  tooLarge: 'splitbook:too-large',
  /** A sync that took most of a store but set some records aside. */
  partial: 'splitbook:partial',
  /**
   * A store's new key reads another store (none of its tests are cached): the UI asks whether to
   * replace the store's cache or add the key as a new store (stores.setKey onDifferentStore).
   */
  differentStore: 'splitbook:different-store',
  /**
   * A store's new key reads another store that is already in Splitbook (its tests are cached there):
   * neither adding it again nor replacing this store's cache is offered; the problem names that store.
   */
  knownStore: 'splitbook:known-store',
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

export type ProblemKind = keyof typeof PROBLEM_TYPES;

/**
 * The one way a problem-details object is built, by the core, the hosts and the simulator alike.
 * `type` is one of PROBLEM_TYPES for the app's own problems, or the server's URI in the simulator.
 */
export function problemDetails(
  type: string,
  status: number,
  title: string,
  detail: string,
): Problem {
  return { type, status, title, detail };
}

/** A problem of one of the app's own kinds. */
export function appProblem(
  kind: ProblemKind,
  status: number,
  title: string,
  detail: string,
): Problem {
  return problemDetails(PROBLEM_TYPES[kind], status, title, detail);
}

/** The same, as an error to throw from a service. */
export function problem(
  kind: ProblemKind,
  status: number,
  title: string,
  detail: string,
): ProblemError {
  return new ProblemError(appProblem(kind, status, title, detail));
}

/** What a bridge call resolves to: data or a problem, never a thrown error across the boundary. */
export type Envelope<T> = { ok: true; data: T } | { ok: false; problem: Problem };
