// A loopback HTTP server whose every answer the test scripts, and which records what it received.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach } from 'vitest';

export interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

export type Script = (req: Received, res: ServerResponse, raw: IncomingMessage) => void;

export interface ScriptedServer {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

export async function startScriptedServer(script: Script, port = 0): Promise<ScriptedServer> {
  const received: Received[] = [];
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const req: Received = {
        method: raw.method ?? '',
        url: raw.url ?? '',
        authorization: raw.headers.authorization,
        contentType: raw.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(req);
      script(req, res, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('The server has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * startScriptedServer for one test file: every server it starts is closed after each test. Call it
 * once, at the file's top level (it registers the afterEach).
 */
export function scriptedServers(): (script: Script, port?: number) => Promise<ScriptedServer> {
  const open = new Set<ScriptedServer>();
  afterEach(async () => {
    const closing = [...open];
    open.clear();
    await Promise.all(closing.map((server) => server.close()));
  });
  return async (script, port) => {
    const server = await startScriptedServer(script, port);
    open.add(server);
    return server;
  };
}

/** A port nothing listens on (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const s = await startScriptedServer(() => undefined);
  const port = s.port;
  await s.close();
  return port;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendProblem(
  res: ServerResponse,
  status: number,
  title: string,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify({
    type: 'https://example.invalid/problems/x',
    title,
    status,
    detail,
  });
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
