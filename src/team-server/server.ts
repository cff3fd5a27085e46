// The team server: Hocuspocus over our own HTTP(S) and WebSocket server, members authenticated by token, each store's document only to those granted it.
//
// Hocuspocus's own `Server` class cannot listen with TLS, so this file owns the listening socket (node:http
// or node:https and `ws`) and hands each WebSocket to `Hocuspocus.handleConnection`. Around it: the
// token and grant check on every document a connection opens (onAuthenticate), the update guard
// (guard.ts) before any update is applied (beforeSync), a rate limit per connection, persistence
// in SQLite (@hocuspocus/extension-database over db.ts), and with --redis the scale-out extension.
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Database } from '@hocuspocus/extension-database';
import { Redis } from '@hocuspocus/extension-redis';
import { type Extension, Hocuspocus } from '@hocuspocus/server';
import { type WebSocket, WebSocketServer } from 'ws';
import { TeamStoreId } from '#shared/team/layout';
import {
  type Db,
  TeamServerError,
  accessOf,
  createStore,
  dataVersionWatcher,
  ensureStore,
  loadDocument,
  memberOfHash,
  memberOfToken,
  openTeamDb,
  storeDocument,
  storesOf,
  tokenHash,
} from './db';
import { MAX_UPDATE_BYTES, UpdateGuard, UpdateRefused } from './guard';
import { ConnectionRate, DEFAULT_RATE_LIMITS, type RateLimits } from './rate-limit';

export interface ServeOptions {
  dataDir: string;
  port: number;
  host: string;
  tls: { cert: string; key: string } | null;
  behindTlsProxy: boolean;
  redisUrl: string | null;
  rateLimits?: RateLimits;
  /** How often the grants are read again for open connections (a removal closes them). */
  revocationPollMs?: number;
}

export interface TeamServer {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Figures for the bench: documents loaded, mirrors held. */
  stats(): { documents: number; connections: number; mirrors: number };
}

/** A frame larger than this is cut by `ws` itself (1009); between 5 MiB and this, the guard refuses it with words. */
const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** The largest awareness state (presence: who has the store open) a client may publish. */
const MAX_AWARENESS_STATE_BYTES = 4 * 1024;

interface SocketState {
  ws: WebSocket;
  rate: ConnectionRate;
  /** The documents this connection opened, per token (its hash) they were opened with. */
  opened: Map<string, Set<string>>;
}

interface Context {
  socket: SocketState;
  member?: string;
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** A refusal of a document (the provider's `authenticationFailed` reason). */
function denied(reason: string): Error & { reason: string } {
  return Object.assign(new Error(reason), { reason });
}

const ACCESS_WORDS = {
  'no-member': 'This token belongs to no member of the team (unknown, or the member was removed).',
  'no-grant': 'This member is not granted this store.',
  'no-store': 'The team has no such store (a member shares one first).',
} as const;

export async function startTeamServer(
  options: ServeOptions,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<TeamServer> {
  if (!isLoopback(options.host) && !options.tls && !options.behindTlsProxy) {
    throw new TeamServerError(
      `Refusing to serve ${options.host} without TLS: tokens and notes would cross the network in clear. ` +
        'Pass --tls-cert and --tls-key, or --behind-tls-proxy when a TLS proxy in front of the server terminates it.',
    );
  }
  const tls = options.tls
    ? { cert: readFileSync(options.tls.cert), key: readFileSync(options.tls.key) }
    : null;
  const db = openTeamDb(options.dataDir);
  const now = () => new Date().toISOString();
  const guard = new UpdateGuard();
  const sockets = new Set<SocketState>();
  const limits = options.rateLimits ?? DEFAULT_RATE_LIMITS;

  const persistence = new Database({
    fetch: async ({ documentName }) => loadDocument(db, documentName),
    store: async ({ documentName, state }) => {
      ensureStore(db, documentName, null, now());
      storeDocument(db, documentName, state, now(), options.redisUrl !== null);
    },
  });
  const extensions: Extension[] = [persistence];
  if (options.redisUrl !== null) extensions.push(redisExtension(options.redisUrl));

  const hocuspocus = new Hocuspocus<Context>({
    name: 'splitbook-team',
    quiet: true,
    extensions,
    async onAuthenticate({ token, documentName, context }) {
      if (!TeamStoreId.safeParse(documentName).success) throw denied(ACCESS_WORDS['no-store']);
      const member = memberOfToken(db, token);
      if (!member) throw denied(ACCESS_WORDS['no-member']);
      const access = accessOf(db, member.name, documentName);
      if (access === 'granted-new') ensureStore(db, documentName, member.name, now());
      else if (access !== 'granted') throw denied(ACCESS_WORDS[access]);
      const hash = tokenHash(token);
      const opened = context.socket.opened.get(hash) ?? new Set<string>();
      opened.add(documentName);
      context.socket.opened.set(hash, opened);
      return { member: member.name };
    },
    async afterLoadDocument({ documentName, document }) {
      guard.follow(documentName, document);
    },
    async afterUnloadDocument({ documentName }) {
      guard.forget(documentName);
    },
    async beforeSync({ type, payload, documentName, document, connection }) {
      if (type === 0) return; // a state vector asks; it changes nothing
      try {
        guard.check(documentName, document, payload);
      } catch (error) {
        if (error instanceof UpdateRefused) {
          const member = (connection.context as Context).member ?? '?';
          log(
            `refused an update of ${payload.byteLength} bytes from ${member} to ${documentName}: ${error.message}`,
          );
          connection.sendStateless(
            JSON.stringify({
              type: 'splitbook.refused',
              reason: error.reason,
              message: error.message,
            }),
          );
        }
        throw error;
      }
    },
    async beforeHandleAwareness({ states }) {
      for (const state of states.values()) {
        if (JSON.stringify(state).length > MAX_AWARENESS_STATE_BYTES) {
          throw new Error(`An awareness state is over ${MAX_AWARENESS_STATE_BYTES} bytes.`);
        }
      }
    },
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    handleHttp(db, request, response, now).catch((error: unknown) => {
      log(
        `HTTP ${request.method} ${request.url}: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (!response.headersSent)
        json(response, 500, { error: 'The server failed on this request.' });
    });
  };
  const server = tls ? createHttpsServer(tls, onRequest) : createHttpServer(onRequest);
  server.on('upgrade', (request, socket, head) => {
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws, request));
  });

  function accept(ws: WebSocket, incoming: IncomingMessage): void {
    const state: SocketState = { ws, rate: new ConnectionRate(limits), opened: new Map() };
    sockets.add(state);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    }
    const request = new Request(`http://localhost${incoming.url ?? '/'}`, { headers });
    const client = hocuspocus.handleConnection(ws, request, { socket: state });
    ws.on('message', (data, isBinary) => {
      if (!isBinary || !(data instanceof Uint8Array)) {
        ws.close(1003, 'Only binary Yjs messages are accepted.');
        return;
      }
      const over = state.rate.take(data.byteLength);
      if (over) {
        log(`closed a connection over its rate limit (${over})`);
        ws.close(1008, `Rate limit: ${over}.`);
        return;
      }
      client.handleMessage(data);
    });
    ws.on('close', (code, reason) => {
      sockets.delete(state);
      client.handleClose({ code, reason: reason.toString('utf8') });
    });
    ws.on('error', (error) => log(`WebSocket error: ${error.message}`));
  }

  // A removed member or a revoked grant closes the connections that used it, within a poll.
  const moved = dataVersionWatcher(db);
  const poll = setInterval(() => {
    if (!moved()) return;
    for (const state of sockets) {
      const lost = [...state.opened].some(([hash, names]) => {
        const member = memberOfHash(db, hash);
        return (
          member === null ||
          [...names].some((name) => {
            const access = accessOf(db, member.name, name);
            return access !== 'granted' && access !== 'granted-new';
          })
        );
      });
      if (lost) {
        state.ws.close(4403, 'Access revoked: this member or grant was removed.');
        setTimeout(() => state.ws.terminate(), 1000).unref();
      }
    }
  }, options.revocationPollMs ?? 500);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost =
    options.host.includes(':') && !options.host.startsWith('[')
      ? `[${options.host}]`
      : options.host;
  const url = `${tls ? 'wss' : 'ws'}://${urlHost}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    stats: () => ({
      documents: hocuspocus.getDocumentsCount(),
      connections: sockets.size,
      mirrors: guard.mirrorCount,
    }),
    close() {
      closing ??= (async () => {
        clearInterval(poll);
        server.close();
        for (const state of sockets) state.ws.close(1001, 'The team server is shutting down.');
        hocuspocus.closeConnections();
        hocuspocus.flushPendingStores();
        const until = Date.now() + 15_000;
        while (hocuspocus.getDocumentsCount() > 0 && Date.now() < until) {
          hocuspocus.flushPendingStores();
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await hocuspocus.hooks('onDestroy', { instance: hocuspocus });
        guard.close();
        for (const state of sockets) state.ws.terminate();
        server.closeAllConnections?.();
        db.close();
      })();
      return closing;
    },
  };
}

function redisExtension(url: string): Redis {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new TeamServerError(`--redis takes a redis:// or rediss:// URL, not "${url}".`);
  }
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  return new Redis({
    host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    prefix: 'splitbook-team',
    options: {
      username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
      password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      db: Number.isInteger(db) ? db : 0,
      tls: parsed.protocol === 'rediss:' ? {} : undefined,
    },
  });
}

// ---------- HTTP: the stores a member may open, and sharing a new one ----------

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function handleHttp(
  db: Db,
  request: IncomingMessage,
  response: ServerResponse,
  now: () => string,
): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (path === '/healthz' && request.method === 'GET') {
    json(response, 200, { ok: true });
    return;
  }
  if (path !== '/v1/stores') {
    json(response, 404, {
      error: 'Not found. The team server answers GET/POST /v1/stores and WebSockets.',
    });
    return;
  }
  const auth = request.headers.authorization ?? '';
  const token = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : '';
  const member = token ? memberOfToken(db, token) : null;
  if (!member) {
    json(response, 401, { error: ACCESS_WORDS['no-member'] });
    return;
  }
  if (request.method === 'GET') {
    json(response, 200, { member: member.name, stores: storesOf(db, member.name) });
  } else if (request.method === 'POST') {
    try {
      json(response, 201, { teamStoreId: createStore(db, member.name, now()) });
    } catch (error) {
      if (!(error instanceof TeamServerError)) throw error;
      json(response, 409, { error: error.message });
    }
  } else {
    response.setHeader('allow', 'GET, POST');
    json(response, 405, { error: 'Use GET or POST.' });
  }
}

export { MAX_UPDATE_BYTES };
