// The bridge contract: every method a host serves (name -> zod input, output) and every event,
// one file per namespace. The renderer's Bridge type, the preload, the Electron IPC handlers, the
// browser host and the core's Services all derive from the table assembled here.
import type { z } from 'zod';
import type { Envelope } from '../problem';
import type { EVENT_NAMES, METHOD_NAMES } from '../channels';
import { app } from './app';
import { audiences } from './audiences';
import { campaigns } from './campaigns';
import { clientReports } from './client-reports';
import { decisions } from './decisions';
import { reports } from './reports';
import { edits } from './edits';
import type { EventName, EventPayload } from './events';
import { notes } from './notes';
import { portfolio } from './portfolio';
import { programme } from './programme';
import { review } from './review';
import { settings } from './settings';
import { stores } from './stores';
import { sync } from './sync';
import { tags } from './tags';
import { team } from './team';
import { tests } from './tests';

export * from './app';
export * from './audiences';
export * from './campaigns';
export * from './client-reports';
export * from './common';
export * from './decisions';
export * from './edits';
export * from './events';
export * from './reports';
export * from './notes';
export * from './portfolio';
export * from './programme';
export * from './review';
export * from './settings';
export * from './stores';
export * from './sync';
export * from './tags';
export * from './team';
export * from './tests';

export const contract = {
  app,
  stores,
  sync,
  tests,
  campaigns,
  audiences,
  tags,
  reports,
  edits,
  review,
  notes,
  portfolio,
  settings,
  decisions,
  clientReports,
  programme,
  team,
} as const;

export type Contract = typeof contract;
export type Namespace = keyof Contract;
export type MethodName<N extends Namespace> = keyof Contract[N] & string;
type Method = { input: z.ZodType; output: z.ZodType };
type At<N extends Namespace, M extends MethodName<N>> = Contract[N][M] extends Method
  ? Contract[N][M]
  : never;
export type InputOf<N extends Namespace, M extends MethodName<N>> = z.input<At<N, M>['input']>;
export type ParsedInputOf<N extends Namespace, M extends MethodName<N>> = z.output<
  At<N, M>['input']
>;
export type OutputOf<N extends Namespace, M extends MethodName<N>> = z.output<At<N, M>['output']>;

/** Every method as its channel name `namespace.method`, the wire name in IPC and HTTP. */
export const CHANNELS = Object.entries(contract).flatMap(([ns, methods]) =>
  Object.keys(methods).map((m) => `${ns}.${m}`),
);

export function lookupMethod(channel: string): Method | null {
  const [ns, m, ...rest] = channel.split('.');
  if (!ns || !m || rest.length > 0 || !Object.hasOwn(contract, ns)) return null;
  const methods: Record<string, Method> = contract[ns as Namespace];
  return Object.hasOwn(methods, m) ? (methods[m] ?? null) : null;
}

// ---------- what the renderer sees ----------

/** One async function per method: resolves to data or a problem (an Envelope), never throws across. */
export type Bridge = {
  [N in Namespace]: {
    [M in MethodName<N>]: (input: InputOf<N, M>) => Promise<Envelope<OutputOf<N, M>>>;
  };
} & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

/** The services a core offers: the same table, called in-process with parsed input. */
export type Services = {
  [N in Namespace]: {
    [M in MethodName<N>]: (input: ParsedInputOf<N, M>) => Promise<OutputOf<N, M>>;
  };
};

// ---------- the zod-free name lists (channels.ts) must say exactly what the contract says ----------

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type ContractMethods = { [N in Namespace]: MethodName<N> };
type ListedMethods = { [N in keyof typeof METHOD_NAMES]: (typeof METHOD_NAMES)[N][number] };
const methodsMatch: Same<ContractMethods, ListedMethods> = true;
const eventsMatch: Same<EventName, (typeof EVENT_NAMES)[number]> = true;
void methodsMatch;
void eventsMatch;
