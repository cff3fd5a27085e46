// Fault injection: latency, 503s, connection resets, truncated and malformed bodies, and records that
// break the schema. Off by default; drawn from the simulator's own random stream so a seeded run fails
// the same requests every time, and `failNext` makes a test exact.
import { z } from 'zod';
import type { Test } from '#shared/api/index';
import { createRandom, hashSeed } from './random';

export const FAULT_KINDS = ['error', 'reset', 'truncate', 'malformed'] as const;
/** error: 503 problem; reset: connection dropped, no response; truncate: body cut mid-JSON; malformed: 200 with invalid JSON. */
export type FaultKind = (typeof FAULT_KINDS)[number];

const Share = z.number().min(0).max(1);

export const BrokenTests = z.object({
  /** This many tests per store, spread evenly over the listing order when the faults are set. */
  count: z.int().nonnegative().default(0),
  /** These tests, in whichever store holds them. */
  ids: z.array(z.string()).default([]),
  /** wrong-type: `title` is 42; missing-key: `status` is left out. */
  kind: z.enum(['wrong-type', 'missing-key']).default('wrong-type'),
});
export type BrokenTests = z.infer<typeof BrokenTests>;

export const Faults = z.object({
  /** Added to every request: a fixed delay or a [min, max] range. */
  latencyMs: z.union([
    z.number().nonnegative(),
    z.tuple([z.number().nonnegative(), z.number().nonnegative()]),
  ]),
  /** Shares of requests (0..1, summing to at most 1) that get each fault. */
  errorRate: Share,
  resetRate: Share,
  truncateRate: Share,
  malformedRate: Share,
  /** Test records served broken in listings and by GET /tests/{id}; null for none. */
  brokenTests: BrokenTests.nullable(),
});
export type Faults = z.infer<typeof Faults>;
export const FaultsInput = Faults.partial();
export type FaultsInput = z.input<typeof FaultsInput>;

export const NO_FAULTS: Faults = {
  latencyMs: 0,
  errorRate: 0,
  resetRate: 0,
  truncateRate: 0,
  malformedRate: 0,
  brokenTests: null,
};

/** Faults with `changes` applied; throws a RangeError on an invalid setting (a test bug, not a request). */
export function mergeFaults(current: Faults, changes: FaultsInput): Faults {
  const parsed = FaultsInput.safeParse(changes);
  if (!parsed.success) throw new RangeError(`Invalid faults: ${z.prettifyError(parsed.error)}`);
  const next: Faults = { ...current };
  // A key given as undefined changes nothing, like a key left out.
  for (const [key, value] of Object.entries(parsed.data))
    if (value !== undefined) Object.assign(next, { [key]: value });
  if (next.errorRate + next.resetRate + next.truncateRate + next.malformedRate > 1) {
    throw new RangeError('Invalid faults: the fault rates add up to more than 1');
  }
  return next;
}

/** Thrown by the handler for a reset: transports drop the connection (HTTP) or reject like fetch (in-process). */
export class SimulatedConnectionReset extends Error {
  constructor() {
    super('Simulated connection reset');
    this.name = 'SimulatedConnectionReset';
  }
}

/** The fault plan: what the next request suffers and how long it waits. Owns its random streams. */
export function createFaultInjector(seed: number, initial: Faults) {
  const faultRandom = createRandom(hashSeed(seed, 'faults'));
  const latencyRandom = createRandom(hashSeed(seed, 'latency'));
  let faults = initial;
  const forced: FaultKind[] = [];
  return {
    current: () => faults,
    set(changes: FaultsInput) {
      faults = mergeFaults(faults, changes);
    },
    /** The next `count` requests get `kind`, before any random draw. */
    failNext(kind: FaultKind, count: number) {
      for (let i = 0; i < count; i++) forced.push(kind);
    },
    /** The fault for the next request, or null. One draw per request keeps the sequence reproducible. */
    draw(): FaultKind | null {
      const roll = faultRandom.next();
      const next = forced.shift();
      if (next !== undefined) return next;
      let threshold = 0;
      for (const [kind, rate] of [
        ['error', faults.errorRate],
        ['reset', faults.resetRate],
        ['truncate', faults.truncateRate],
        ['malformed', faults.malformedRate],
      ] as const) {
        threshold += rate;
        if (roll < threshold) return kind;
      }
      return null;
    },
    latencyMs(): number {
      const latency = faults.latencyMs;
      if (typeof latency === 'number') return latency;
      const [min, max] = latency;
      return min + latencyRandom.next() * Math.max(0, max - min);
    },
  };
}
export type FaultInjector = ReturnType<typeof createFaultInjector>;

/** The ids to break: the listed ones plus `count` spread evenly over the store's listing order. */
export function pickBrokenIds(orderedIds: readonly string[], spec: BrokenTests): Set<string> {
  const picked = new Set(spec.ids);
  const count = Math.min(spec.count, orderedIds.length);
  for (let k = 0; k < count; k++) {
    const id = orderedIds[Math.floor(((k + 0.5) * orderedIds.length) / count)];
    if (id !== undefined) picked.add(id);
  }
  return picked;
}

/** A copy of `test` that no longer matches the Test schema. */
export function breakRecord(test: Test, kind: BrokenTests['kind']): Record<string, unknown> {
  if (kind === 'wrong-type') return { ...test, title: 42 };
  const { status: _status, ...rest } = test;
  return rest;
}

/** The same response with its body cut in half: the stream errors after the first part, like a dropped socket. */
export async function truncateBody(response: Response): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  if (bytes.length === 0) return new Response(null, { status: response.status, headers });
  headers.set('content-length', String(bytes.length));
  const part = bytes.slice(0, Math.floor(bytes.length / 2));
  let sent = false;
  // Enqueue in pull(): an error raised in start() would discard the queued part before anyone reads it.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) {
        controller.error(new TypeError('terminated'));
        return;
      }
      sent = true;
      controller.enqueue(part);
    },
  });
  return new Response(body, { status: response.status, headers });
}

/** A 200 whose body is not JSON: the real body with a trailing comma forced in (`,}` is never valid). */
export async function malformBody(response: Response): Promise<Response> {
  const text = await response.text();
  const body = text.length > 0 ? `${text.slice(0, -1)},}` : '{,}';
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}
