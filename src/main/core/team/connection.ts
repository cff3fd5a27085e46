// One desktop's connection to the team server: a socket (@hocuspocus/provider) carrying a provider per shared store, reconnecting by itself.
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import type * as Y from 'yjs';
import { problem } from '#shared/problem';

/** What the server said of one store's document. */
export interface StoreLine {
  provider: HocuspocusProvider;
  /** Why the server refused it (a revoked token, no grant, a refused update), or null. */
  refused: string | null;
}

export interface TeamConnectionOptions {
  url: string;
  token: string;
  /** Told when a store's copy matches the server's (synced, nothing of ours unconfirmed). */
  onConverged(teamStoreId: string): void;
  /** Told when the server refuses a store, or the whole connection. */
  onRefused(teamStoreId: string | null, reason: string): void;
}

/** Close codes that mean "refused", not "try again" (server.ts: 4403 access revoked; 1008 rate limit). */
const REFUSING_CLOSES = new Set([4401, 4403, 1008]);

export class TeamConnection {
  private readonly socket: HocuspocusProviderWebsocket;
  private readonly lines = new Map<string, StoreLine>();
  /** Ever opened once: a socket that never opens is a server out of reach. */
  opened = false;
  failedAttempts = 0;
  refusedAll: string | null = null;

  constructor(private readonly options: TeamConnectionOptions) {
    this.socket = new HocuspocusProviderWebsocket({
      url: options.url,
      WebSocketPolyfill: WebSocket,
      // Reconnects by itself: quickly at first, then at most every 30 s while the server is away.
      delay: 500,
      minDelay: 500,
      maxDelay: 30_000,
      factor: 2,
      maxAttempts: 0,
      messageReconnectTimeout: 60_000,
      onOpen: () => {
        this.opened = true;
        this.failedAttempts = 0;
      },
      onClose: ({ event }) => {
        if (!this.opened) this.failedAttempts += 1;
        if (REFUSING_CLOSES.has(event.code)) {
          this.refusedAll =
            event.reason || `The team server closed the connection (${event.code}).`;
          options.onRefused(null, this.refusedAll);
        }
      },
    });
  }

  get connected(): boolean {
    return this.socket.status === 'connected';
  }

  /** Opens a store's document on the socket (idempotent). */
  open(teamStoreId: string, doc: Y.Doc): void {
    if (this.lines.has(teamStoreId)) return;
    const line: StoreLine = {
      refused: null,
      provider: new HocuspocusProvider({
        websocketProvider: this.socket,
        name: teamStoreId,
        document: doc,
        token: this.options.token,
        // Presence (presence.ts) rides on the provider's awareness.
        onAuthenticationFailed: ({ reason }) => {
          line.refused = reason;
          this.options.onRefused(teamStoreId, reason);
        },
        onStateless: ({ payload }) => {
          const refusal = refusalOf(payload);
          if (refusal) {
            line.refused = refusal;
            this.options.onRefused(teamStoreId, refusal);
          }
        },
        onSynced: () => this.check(teamStoreId),
        onUnsyncedChanges: () => this.check(teamStoreId),
      }),
    };
    this.lines.set(teamStoreId, line);
    line.provider.attach();
  }

  private check(teamStoreId: string): void {
    if (this.converged(teamStoreId)) this.options.onConverged(teamStoreId);
  }

  converged(teamStoreId: string): boolean {
    const line = this.lines.get(teamStoreId);
    return (
      line !== undefined &&
      line.refused === null &&
      line.provider.isSynced &&
      !line.provider.hasUnsyncedChanges
    );
  }

  refusal(teamStoreId: string): string | null {
    return this.lines.get(teamStoreId)?.refused ?? this.refusedAll;
  }

  /** Each open store's provider, by team store id (presence reads and writes their awareness). */
  providers(): Map<string, HocuspocusProvider> {
    return new Map([...this.lines].map(([id, line]) => [id, line.provider]));
  }

  /** Closes one store's document on the socket (the others stay open). */
  closeStore(teamStoreId: string): void {
    this.lines.get(teamStoreId)?.provider.destroy();
    this.lines.delete(teamStoreId);
  }

  storeIds(): string[] {
    return [...this.lines.keys()];
  }

  close(): void {
    for (const line of this.lines.values()) line.provider.destroy();
    this.lines.clear();
    this.socket.destroy();
  }
}

/** The server's refusal of an update (guard.ts: `{"type":"splitbook.refused","reason","message"}`). */
function refusalOf(payload: string): string | null {
  try {
    const value: unknown = JSON.parse(payload);
    if (
      typeof value === 'object' &&
      value !== null &&
      'type' in value &&
      value.type === 'splitbook.refused' &&
      'message' in value &&
      typeof value.message === 'string'
    ) {
      return value.message;
    }
  } catch {
    // Not ours: another stateless message.
  }
  return null;
}

/** How a wait for documents ended (`settle`). */
export type Settled =
  | { kind: 'converged' }
  | { kind: 'refused'; reason: string }
  | { kind: 'unreachable' }
  | { kind: 'timeout' };

/**
 * Waits until the documents are settled, the server was never reached (two failed attempts) or the
 * time is up, and says which: the one wait `team sync` and the link probe share. Settled is every
 * document synced, or (`anyRefusal`) the first refusal, else each synced or refused.
 */
export function settle(
  line: TeamConnection,
  ids: string[],
  timeoutMs: number,
  anyRefusal: boolean,
): Promise<Settled> {
  const started = Date.now();
  return new Promise((resolve) => {
    const tick = () => {
      const reason = ids.map((id) => line.refusal(id)).find((r) => r !== null);
      const settled = ids.every((id) => line.converged(id) || line.refusal(id) !== null);
      if (reason && (anyRefusal || settled)) resolve({ kind: 'refused', reason });
      else if (settled) resolve({ kind: 'converged' });
      else if (!line.opened && line.failedAttempts >= 2) resolve({ kind: 'unreachable' });
      else if (Date.now() - started > timeoutMs) resolve({ kind: 'timeout' });
      else setTimeout(tick, 20);
    };
    tick();
  });
}

/**
 * Waits until every store's copy matches the server's; a refusal, a server never reached, or the
 * time running out ends the wait with a problem in words for the user (`team sync`).
 */
export async function waitConverged(
  line: TeamConnection,
  ids: string[],
  url: string,
  timeoutMs: number,
): Promise<void> {
  const end = await settle(line, ids, timeoutMs, true);
  if (end.kind === 'converged') return;
  if (end.kind === 'refused')
    throw problem('unauthorized', 401, 'The team server refused', end.reason);
  const unreachable = `The team server at ${url} cannot be reached.`;
  if (end.kind === 'unreachable')
    throw problem('offline', 503, 'Team server unreachable', unreachable);
  throw problem(
    'offline',
    504,
    'Team sync timed out',
    line.opened
      ? `The exchange with ${url} did not finish within ${timeoutMs / 1000} s.`
      : unreachable,
  );
}
