// Test support: a loopback HTTP proxy in front of a served simulator that answers one test's results with
// figures the test chooses (the rest is the simulator's, untouched), so a sync can be made to change a
// test's call exactly when the test wants. Real HTTP on both legs.
import { createServer, type IncomingMessage } from 'node:http';
import type { TestResults } from '#shared/api/index';

export interface ResultsProxy {
  url: string;
  /** Answers GET …/tests/{testId}/results with `results` from now on (null: the simulator's again). */
  setResults(testId: string, results: TestResults | null): void;
  /** Requests that came through, as `METHOD path`. */
  requests: string[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

export async function startResultsProxy(target: string): Promise<ResultsProxy> {
  const scripted = new Map<string, TestResults>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/';
      requests.push(`${req.method} ${path}`);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'connection')
          headers.set(name, value);
      }
      const sent = await body(req);
      const answer = await fetch(new URL(path, target), {
        method: req.method,
        headers,
        body: sent.length > 0 ? new Uint8Array(sent) : undefined,
      });
      let payload = Buffer.from(await answer.arrayBuffer());
      const match = /\/tests\/([^/?]+)\/results$/.exec(path.split('?')[0] ?? '');
      const own = match?.[1] === undefined ? undefined : scripted.get(match[1]);
      if (own !== undefined && answer.status === 200) payload = Buffer.from(JSON.stringify(own));
      const out: Record<string, string> = { 'content-length': String(payload.length) };
      for (const name of ['content-type', 'retry-after']) {
        const value = answer.headers.get(name);
        if (value !== null) out[name] = value;
      }
      res.writeHead(answer.status, out);
      res.end(payload);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('The proxy has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    setResults(testId, results) {
      if (results === null) scripted.delete(testId);
      else scripted.set(testId, results);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
