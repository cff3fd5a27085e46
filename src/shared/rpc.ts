// A table of methods `namespace.method(input)` called and served by channel name, once for every
// mechanism: the preload (IPC), the renderer (HTTP) and its api wrapper, the hosts' dispatch and the
// sync thread (a MessagePort) build their proxies with createProxy and answer with serve. Zod-free:
// the sandboxed preload bundles it; the contract's parsing is handed in by the host that serves it.
import type { Envelope, Problem } from './problem';

/** A method of a table: one input (or none), answered asynchronously. */
type Method = (input: never) => Promise<unknown>;

/** A table of methods by namespace (the contract's Bridge, Api or Services, the sync thread's). */
export type MethodTable<T> = { [N in keyof T]: { [M in keyof T[N]]: Method } };

/** Each namespace's method names, the zod-free description a proxy is built from (channels.ts). */
export type MethodNames<T> = {
  readonly [N in keyof T & string]: readonly (keyof T[N] & string)[];
};

/**
 * True when the names list (`typeof NAMES`, declared `as const`) holds exactly T's methods, for a
 * compile-time check beside a hand-written list: `const listed: ListsExactly<T, typeof NAMES> = true`.
 */
export type ListsExactly<T, L> = Same<
  { [N in keyof T]: keyof T[N] },
  { [N in keyof L]: L[N] extends readonly (infer M)[] ? M : never }
>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** How a proxy reaches the other side: the channel `namespace.method` and the one input. */
export type Call = (channel: string, input: unknown) => Promise<unknown>;

/**
 * One function per listed method, each calling `call` with its own channel and its one input, and
 * nothing else (no generic call, no prototype). T is the table's type; `call` keeps its promise.
 */
export function createProxy<T extends MethodTable<T>>(names: MethodNames<T>, call: Call): T {
  const proxy: Record<string, Record<string, (input: unknown) => Promise<unknown>>> = {};
  for (const [namespace, methods] of Object.entries<readonly string[]>(names)) {
    const functions: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const name of methods) {
      const channel = `${namespace}.${name}`;
      functions[name] = (input) => call(channel, input);
    }
    proxy[namespace] = functions;
  }
  // The one cast of the bridge: the object has exactly the namespaces and methods `names` lists,
  // which MethodNames ties to T's keys (a list that misses one is refused where it is written, by
  // channels.ts's check against the contract and the thread's in protocol.ts; test/shared/rpc.test.ts
  // checks the built keys). Each method resolves to what `call` answers for it, which only the
  // other side can promise: the contract's outputs are produced by typed code behind a zod parse.
  return proxy as unknown as T;
}

/**
 * The method a channel names in a table of implementations, bound to its namespace, or null. Own
 * properties only: `__proto__.toString`, `app.constructor` or `app.info.extra` name nothing.
 */
export function lookup(
  table: object,
  channel: string,
): ((input: unknown) => Promise<unknown>) | null {
  const [namespace, name, ...rest] = channel.split('.');
  if (!namespace || !name || rest.length > 0 || !Object.hasOwn(table, namespace)) return null;
  const methods: unknown = Reflect.get(table, namespace);
  if (typeof methods !== 'object' || methods === null || !Object.hasOwn(methods, name)) return null;
  const method: unknown = Reflect.get(methods, name);
  if (typeof method !== 'function') return null;
  // Async, so a method that throws synchronously rejects like one that fails later.
  return async (input) => Reflect.apply(method, methods, [input]);
}

/** What a server decides for itself: its refusals and how an error becomes data. */
export interface Serving {
  /** The problem for a channel the table does not have. */
  unknown(channel: string): Problem;
  /** The input as the method takes it, or the problem to answer instead (the contract's zod parse). */
  input?(channel: string, raw: unknown): Envelope<unknown>;
  /** The problem for an error the method threw; the error itself never crosses. */
  failed(error: unknown, channel: string): Problem;
}

/** Calls the method a channel names with its input and answers an Envelope. Never throws. */
export async function serve(
  table: object,
  channel: string,
  raw: unknown,
  serving: Serving,
): Promise<Envelope<unknown>> {
  const method = lookup(table, channel);
  if (!method) return { ok: false, problem: serving.unknown(channel) };
  try {
    const input = serving.input ? serving.input(channel, raw) : { ok: true as const, data: raw };
    if (!input.ok) return input;
    return { ok: true, data: await method(input.data) };
  } catch (error) {
    return { ok: false, problem: serving.failed(error, channel) };
  }
}
