// What a host gets from the core: the contract's services, its events, and a way to shut down.
import type { EventName, EventPayload, Services } from '../../shared/contract';

export type CoreEventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface Core {
  /** One async function per contract method, taking already-parsed input. Throws ProblemError. */
  readonly services: Services;
  /** Subscribe to every event the core emits; returns an unsubscribe function. */
  subscribe(listener: CoreEventListener): () => void;
  /** Cancels syncs, closes the database. */
  close(): Promise<void>;
}
