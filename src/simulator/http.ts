// node:http adapter for the simulator: IncomingMessage -> Request, Response -> ServerResponse, and the
// transport faults made real (a reset destroys the socket; a truncated body is cut, then the socket dies).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SimulatedConnectionReset } from './faults';
import type { Handler } from './handler';

export type ServeOptions = { port?: number; host?: string };
export type ServedSimulator = {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Stops listening (connections are refused, as when the store is unreachable) or listens again on the same port. */
  setOffline(offline: boolean): Promise<void>;
};

async function readRequestBody(message: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of message)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

async function toRequest(message: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) {
    const name = message.rawHeaders[i];
    const value = message.rawHeaders[i + 1];
    if (name !== undefined && value !== undefined) headers.append(name, value);
  }
  const method = message.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : await readRequestBody(message);
  return new Request(new URL(message.url ?? '/', origin), {
    method,
    headers,
    body: body === undefined || body.length === 0 ? undefined : new Uint8Array(body),
  });
}

/** Reads the whole body; a stream that errors (a truncation fault) yields what came before the error. */
async function readResponseBody(response: Response): Promise<{ bytes: Buffer; complete: boolean }> {
  const chunks: Uint8Array[] = [];
  if (response.body === null) return { bytes: Buffer.alloc(0), complete: true };
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), complete: true };
      chunks.push(value);
    }
  } catch {
    return { bytes: Buffer.concat(chunks), complete: false };
  }
}

async function writeResponse(response: Response, out: ServerResponse): Promise<void> {
  const { bytes, complete } = await readResponseBody(response);
  response.headers.forEach((value, name) => out.setHeader(name, value));
  out.statusCode = response.status;
  if (complete) {
    if (response.status !== 204 && response.status !== 304)
      out.setHeader('content-length', bytes.length);
    out.end(bytes);
    return;
  }
  // Truncated: the head promises the full length (set by the fault), the body stops short, the socket dies.
  out.flushHeaders();
  out.write(bytes, () => out.destroy());
}

function sendPlainProblem(out: ServerResponse, status: number, title: string, detail: string) {
  if (out.headersSent) {
    out.destroy();
    return;
  }
  const body = JSON.stringify({ type: 'about:blank', title, status, detail });
  out.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
  });
  out.end(body);
}

/** Serves `target` (a simulator or a bare handler) on loopback; port 0 picks a free port. */
export async function serveSimulator(
  target: Handler | { handler: Handler },
  options: ServeOptions = {},
): Promise<ServedSimulator> {
  const handler = typeof target === 'function' ? target : target.handler;
  const host = options.host ?? '127.0.0.1';
  const server = createServer((message, out) => {
    void (async () => {
      let request: Request;
      try {
        request = await toRequest(message, `http://${host}`);
      } catch (error) {
        // e.g. TRACE or CONNECT, which a web Request refuses to carry.
        sendPlainProblem(
          out,
          405,
          'Method not allowed',
          error instanceof Error ? error.message : String(error),
        );
        return;
      }
      try {
        await writeResponse(await handler(request), out);
      } catch (error) {
        if (error instanceof SimulatedConnectionReset) {
          message.socket.destroy();
          return;
        }
        sendPlainProblem(
          out,
          500,
          'Internal error',
          error instanceof Error ? error.message : String(error),
        );
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('The simulator server has no TCP address');
  const { port } = address;
  let offline = false;
  return {
    url: `http://${host}:${port}`,
    port,
    async setOffline(next) {
      if (next === offline) return;
      offline = next;
      if (next) {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      } else {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, host, () => resolve());
        });
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (offline) {
          resolve();
          return;
        }
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
