// The browser host: the contract over loopback HTTP and server-sent events, plus the built renderer.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import type { Core } from '#core/index';
import { CALL_PATH, EVENTS_PATH, TOKEN_HEADER, TOKEN_PARAM } from '#shared/http-bridge';
import { appProblem, type Problem, type ProblemKind } from '#shared/problem';
import { dispatch, unexpectedProblem } from '../common/dispatch';
import { streamEvents } from './event-stream';
import { mediaType, readBody, sendEnvelope, sendProblem, type BodyResult } from './http-utils';
import { allowedHosts, allowedOrigins, tokensMatch } from './guards';
import { serveStatic } from './static-files';
import { DOWNLOAD_PATH, type createDownloads } from './downloads';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface BrowserHostOptions {
  core: Core;
  /** The built renderer, e.g. out/renderer. */
  staticDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback only, on purpose: the host serves one user on one machine. */
  host?: '127.0.0.1';
  /** Interval of the SSE heartbeat comments (tests shorten it). */
  heartbeatMs?: number;
  /** Finished exports the page downloads (the same object the core got as its saveFile). */
  downloads?: ReturnType<typeof createDownloads>;
}

export interface BrowserHost {
  /** The address to open, with the token: http://127.0.0.1:PORT/?token=… */
  url: string;
  origin: string;
  token: string;
  close(): Promise<void>;
}

export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
  const { core, heartbeatMs } = options;
  const staticDir = resolve(options.staticDir);
  const token = randomBytes(32).toString('base64url');
  const streams = new Set<() => void>();
  let port = 0;
  // A store the CLI adds while the page is open shows up without a reload.
  const stopWatch = core.watchStores();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example.
    if (!allowedHosts(port).has((req.headers.host ?? '').toLowerCase())) {
      return sendProblem(res, WRONG_HOST);
    }
    const url = parseTarget(req.url);
    if (!url) return sendProblem(res, BAD_TARGET);
    if (url.pathname !== '/api' && !url.pathname.startsWith('/api/')) {
      // The built renderer is public: no token for static files, only for /api.
      return serveStatic(req, res, staticDir, url.pathname);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins(port).has(origin.toLowerCase())) {
      return sendProblem(res, WRONG_ORIGIN);
    }

    if (url.pathname === EVENTS_PATH) {
      // EventSource cannot send headers: the stream takes its token from the query string.
      if (!tokensMatch(url.searchParams.get(TOKEN_PARAM), token))
        return sendProblem(res, BAD_TOKEN);
      if (req.method !== 'GET') return sendProblem(res, NOT_ALLOWED, { allow: 'GET' });
      const end = streamEvents(res, core, heartbeatMs);
      streams.add(end);
      res.on('close', () => streams.delete(end));
      return;
    }

    const header = req.headers[TOKEN_HEADER];
    if (!tokensMatch(typeof header === 'string' ? header : null, token)) {
      return sendProblem(res, BAD_TOKEN);
    }
    if (url.pathname.startsWith(`${DOWNLOAD_PATH}/`)) {
      if (req.method !== 'GET') return sendProblem(res, NOT_ALLOWED, { allow: 'GET' });
      const served = await options.downloads?.serve(
        url.pathname.slice(DOWNLOAD_PATH.length + 1),
        res,
      );
      return served ? undefined : sendProblem(res, NO_ROUTE);
    }
    if (!url.pathname.startsWith(`${CALL_PATH}/`)) return sendProblem(res, NO_ROUTE);
    if (req.method !== 'POST') return sendProblem(res, NOT_ALLOWED, { allow: 'POST' });
    // JSON only: it also keeps out the "simple" cross-site form posts that need no CORS preflight.
    if (mediaType(req.headers['content-type']) !== 'application/json') {
      return sendProblem(res, NOT_JSON);
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    const body: BodyResult =
      declared > MAX_BODY_BYTES ? { kind: 'too-large' } : await readBody(req, MAX_BODY_BYTES);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too-large') {
      // An announced oversized body is not read: discard what arrives and close after answering.
      if (declared > MAX_BODY_BYTES) req.resume();
      return sendProblem(res, TOO_LARGE, { connection: 'close' });
    }
    let input: unknown;
    try {
      input = body.text.trim() === '' ? undefined : JSON.parse(body.text);
    } catch {
      return sendProblem(res, BAD_JSON);
    }
    const envelope = await dispatch(core, url.pathname.slice(CALL_PATH.length + 1), input);
    sendEnvelope(res, envelope.ok ? 200 : envelope.problem.status, envelope);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('[splitbook] browser host request failed:', error);
      if (!res.headersSent) sendProblem(res, unexpectedProblem(), { connection: 'close' });
      else res.destroy();
    });
  });
  // A malformed request gets a plain 400 and its socket closed; it never reaches the handler.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' }, () => {
      server.off('error', fail);
      done();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('The browser host is not listening on a TCP port.');
  port = address.port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/?${TOKEN_PARAM}=${token}`,
    origin,
    token,
    close: () =>
      new Promise<void>((done) => {
        stopWatch();
        for (const end of streams) end();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** The path and query of a request target; null for anything that is not an origin-form path. */
function parseTarget(target: string | undefined): URL | null {
  if (!target?.startsWith('/') || target.startsWith('//')) return null;
  try {
    return new URL(target, 'http://127.0.0.1');
  } catch {
    return null;
  }
}

function refusal(
  status: number,
  title: string,
  detail: string,
  kind: ProblemKind = 'validation',
): Problem {
  return appProblem(kind, status, title, detail);
}

const WRONG_HOST = refusal(
  421,
  'Wrong host',
  'This server answers only to 127.0.0.1 or localhost on its own port.',
);
const BAD_TARGET = refusal(400, 'Bad request', 'The request target is not a path.');
const WRONG_ORIGIN = refusal(
  403,
  'Wrong origin',
  'Only the Splitbook page served here may call the API.',
  'forbidden',
);
const BAD_TOKEN = refusal(
  401,
  'Missing or wrong token',
  'Open Splitbook with the address the host printed.',
  'unauthorized',
);
const NO_ROUTE = refusal(404, 'Not found', 'There is no such API route.', 'notFound');
const NOT_ALLOWED = refusal(405, 'Method not allowed', 'This route does not take that method.');
const NOT_JSON = refusal(415, 'Unsupported media type', 'Send the input as application/json.');
const TOO_LARGE = refusal(
  413,
  'Input too large',
  `The input may be at most ${MAX_BODY_BYTES} bytes.`,
);
const BAD_JSON = refusal(400, 'Invalid input', 'The body is not valid JSON.');
