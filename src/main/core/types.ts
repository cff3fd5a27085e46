// What a host gets from the core: the contract's services, its typed events, and a way to shut down.
import type { CoreEvent, Services } from '../../shared/contract';

/** Receives every event the core emits; `event.name` narrows `event.payload`. */
export type CoreEventListener = (event: CoreEvent) => void;

export interface Core {
  /** One async function per contract method, taking already-parsed input. Throws ProblemError. */
  readonly services: Services;
  /** Subscribe to every event the core emits; returns an unsubscribe function. */
  subscribe(listener: CoreEventListener): () => void;
  /** Cancels syncs, closes the database. */
  close(): Promise<void>;
}
