// What came back on the wire, read the transport's way: a body read up to a cap, JSON or none, a
// problem's details, a fetch failure's system code and its words, and durations and sizes as the
// transport's messages print them.
import { ProblemDetails } from '#shared/api/index';
import type { ReplyBody } from './request';

/** Failures that happen before a connection exists: the request surely never reached the server. */
export const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** A fetch failure's system code, in words. */
export const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name is unknown',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EADDRNOTAVAIL: 'the address is not available',
  UND_ERR_CONNECT_TIMEOUT: 'the connection could not be opened in time',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection closed before the answer was complete',
  ETIMEDOUT: 'the connection timed out',
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate cannot be verified",
};

/**
 * The body as text, or too large once it exceeds `limit` bytes (the rest is not read: the stream is
 * cancelled), with its first `keep` bytes. Of a Content-Length above the limit nothing more is read
 * than those `keep` bytes (none for most requests).
 */
export async function readCapped(
  response: Response,
  limit: number,
  keep: number,
): Promise<{ type: 'text'; text: string } | { type: 'too-large'; head: string }> {
  const declared = Number(response.headers.get('content-length'));
  const refused = Number.isFinite(declared) && declared > limit;
  if (!response.body || (refused && keep === 0)) {
    await response.body?.cancel().catch(() => {});
    return refused ? { type: 'too-large', head: '' } : { type: 'text', text: '' };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const tooLarge = async (last: Uint8Array | null) => {
    await reader.cancel().catch(() => {});
    const head: Uint8Array[] = [];
    let kept = 0;
    for (const chunk of last ? [...chunks, last] : chunks) {
      if (kept >= keep) break;
      head.push(chunk.subarray(0, keep - kept));
      kept += Math.min(chunk.byteLength, keep - kept);
    }
    return { type: 'too-large' as const, head: Buffer.concat(head, kept).toString('utf8') };
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > limit) return tooLarge(value);
    total += value.byteLength;
    chunks.push(value);
    if (refused && total >= keep) return tooLarge(null);
  }
  if (refused) return tooLarge(null);
  return { type: 'text', text: Buffer.concat(chunks, total).toString('utf8') };
}

export function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1
    ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`
    : `${Math.ceil(bytes / 1024)} KB`;
}

export function readBody(status: number, text: string): ReplyBody {
  if (status === 204 || text.trim() === '') return { kind: 'none' };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'unreadable', reason: describe(error) };
  }
}

/** The server's problem details, when its error body carries them; fields may each be missing. */
export function problemDetails(text: string): {
  type: string | null;
  title: string | null;
  detail: string | null;
} {
  const none = { type: null, title: null, detail: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return none;
  }
  const parsed = ProblemDetails.safeParse(json);
  if (!parsed.success) return none;
  const nonEmpty = (s: string | null | undefined) => (s && s.trim() !== '' ? s.trim() : null);
  return {
    type: nonEmpty(parsed.data.type),
    title: nonEmpty(parsed.data.title),
    detail: nonEmpty(parsed.data.detail),
  };
}

/** The system error code of a fetch failure, wherever undici put it (the error, its cause, an AggregateError). */
export function errorCode(error: unknown): string | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if ('code' in current && typeof current.code === 'string') return current.code;
    if ('cause' in current) queue.push(current.cause);
    if (current instanceof AggregateError) queue.push(...current.errors);
  }
  return null;
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : null;
    return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
  }
  return String(error);
}

/** Whole seconds from ten on ("21 s"), tenths below ("2.4 s"). */
export function roughSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

export function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
