// Who may talk to the browser host: the right Host header (DNS rebinding), our own origin, the per-run token.
import { createHash, timingSafeEqual } from 'node:crypto';

/** Host header values the host answers to. */
export function allowedHosts(port: number): ReadonlySet<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

/** Origins of a page this host served (the user may open it as 127.0.0.1 or as localhost). */
export function allowedOrigins(port: number): ReadonlySet<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
}

/** Constant-time comparison: both sides are hashed first, so neither content nor length leaks through timing. */
export function tokensMatch(given: string | null, expected: string): boolean {
  if (given === null) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
