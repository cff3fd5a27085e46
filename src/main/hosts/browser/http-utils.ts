// Small pieces of the browser host's HTTP handling: security headers, JSON answers, bounded body reading.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Envelope, Problem } from '#shared/problem';
import { CONTENT_SECURITY_POLICY } from '../common/csp';

/** Sent with every answer: the page's CSP, no MIME sniffing, no referrer, no embedding elsewhere. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Every /api answer is a JSON Envelope, whatever its status, so the renderer reads failures the same way. */
export function sendEnvelope(
  res: ServerResponse,
  status: number,
  envelope: Envelope<unknown>,
  extra: Record<string, string> = {},
): void {
  const body = JSON.stringify(envelope);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(body);
}

export function sendProblem(
  res: ServerResponse,
  problem: Problem,
  extra: Record<string, string> = {},
): void {
  sendEnvelope(res, problem.status, { ok: false, problem }, extra);
}

export type BodyResult =
  { kind: 'body'; text: string } | { kind: 'too-large' } | { kind: 'aborted' };

/** Past this, a sender that ignores the 413 is cut off instead of drained. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Reads the body as UTF-8 text up to `limit` bytes. A larger body is drained (so the client can
 * read the 413 instead of a reset connection) and reported as too large. Never rejects.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > DRAIN_LIMIT_BYTES) req.destroy();
    });
    req.on('end', () =>
      resolve(
        size <= limit
          ? { kind: 'body', text: Buffer.concat(chunks).toString('utf8') }
          : { kind: 'too-large' },
      ),
    );
    // The client hung up (or was cut off): there is nobody left to answer.
    req.on('error', () => resolve({ kind: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) resolve({ kind: 'aborted' });
    });
  });
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
