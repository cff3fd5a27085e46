// Writes an export beside its final name and renames it at the end: a failed or cancelled export
// never leaves half a file where the user expects a whole one, and never a stray temporary file.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';

/**
 * Runs `produce` on a stream into a hidden temporary file in the target's folder, then renames it.
 * On any failure the stream is destroyed, the temporary file removed, and the first real cause
 * (a SQLite error, ENOSPC, a cancellation) re-thrown; a stream error is never left unhandled.
 */
export async function writeFileAtomically<T>(
  outFile: string,
  produce: (out: Writable) => Promise<T>,
): Promise<T> {
  const temp = join(
    dirname(outFile),
    `.${basename(outFile)}.${randomBytes(6).toString('hex')}.partial`,
  );
  const out = createWriteStream(temp, { flags: 'wx' });
  let streamError: unknown = null;
  out.on('error', (error) => (streamError ??= error));
  try {
    await new Promise<void>((resolve, reject) => {
      out.once('open', () => resolve());
      out.once('error', reject);
    });
    const result = await produce(out);
    if (!out.writableEnded) out.end();
    await finished(out);
    if (streamError) throw streamError;
    await rename(temp, outFile);
    return result;
  } catch (error) {
    out.destroy();
    await finished(out).catch(() => undefined);
    await rm(temp, { force: true });
    throw streamError && !(error instanceof Error && error.name === 'ProblemError')
      ? streamError
      : error;
  }
}

/** Writes to a stream with backpressure, surfacing the stream's own error instead of ERR_STREAM_DESTROYED. */
export function sinkFor(out: Writable): { write(chunk: string | Uint8Array): Promise<void> } {
  let failed: unknown = null;
  out.on('error', (error) => (failed ??= error));
  return {
    async write(chunk) {
      if (failed) throw failed;
      if (out.destroyed)
        throw out.errored ?? new Error('The output was closed before the export finished.');
      if (chunk.length === 0) return;
      if (out.write(chunk)) return;
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          out.off('drain', done);
          out.off('error', fail);
          out.off('close', done);
          resolve();
        };
        const fail = (error: unknown) => {
          out.off('drain', done);
          out.off('close', done);
          reject(error);
        };
        out.on('drain', done);
        out.on('close', done);
        out.once('error', fail);
      });
      if (failed) throw failed;
    },
  };
}

/**
 * Text encoded as UTF-8 straight into a buffer of `size` bytes, taken whole when full: a writer of
 * millions of short rows pays one copy per row instead of building long strings (which V8 must
 * flatten before encoding them). Each `take` hands its buffers over and starts a new one.
 */
export class Utf8Chunks {
  private buffer: Buffer;
  private used = 0;
  private readonly waiting: string[] = [];

  constructor(private readonly size = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  /** Adds text; true once the chunk is full (take it before adding more, or it grows in memory). */
  add(text: string): boolean {
    // A UTF-16 unit is at most 3 bytes of UTF-8: text that surely fits is encoded in place.
    if (this.waiting.length === 0 && this.used + text.length * 3 <= this.size) {
      this.used += this.buffer.write(text, this.used, 'utf8');
      return false;
    }
    this.waiting.push(text);
    return true;
  }

  /** The bytes added since the last take, in order. */
  take(): Buffer[] {
    const parts = this.used > 0 ? [this.buffer.subarray(0, this.used)] : [];
    if (this.waiting.length > 0) parts.push(Buffer.from(this.waiting.join(''), 'utf8'));
    this.waiting.length = 0;
    if (this.used > 0) this.buffer = Buffer.allocUnsafe(this.size);
    this.used = 0;
    return parts;
  }
}
