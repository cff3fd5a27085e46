// Writes a report, an export or a backup where the user asked: a file is written beside its final name and
// renamed at the end, so a failed or cancelled export never leaves half a file where the user expects a whole
// one, nor a stray temporary file. A character device or a pipe (/dev/null, /dev/stdout, a FIFO, `>(gzip)`)
// is written straight, never replaced by a file; a link is followed to its file; a folder, a disk device or
// a socket is refused with words that say so.
import { randomBytes } from 'node:crypto';
import { createWriteStream, type Stats } from 'node:fs';
import { lstat, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { problem, ProblemError } from '#shared/problem';
import { diskFullProblem, storageFailure } from '../db/storage-errors';

/** Where to write: a file (new or replaced, atomically) or a device or pipe written as it is. */
export type OutputTarget = { kind: 'file' | 'stream'; path: string };

/**
 * What `path` names, followed through links. A regular file or a new name is a `file`; a character device
 * or a FIFO is a `stream` when `streams` (a report or export can be streamed; a backup, an SQLite file, cannot).
 * Anything else is refused, before anything is written.
 */
export async function outputTarget(
  path: string,
  { streams }: { streams: boolean },
): Promise<OutputTarget> {
  let link: Stats | null = null;
  try {
    link = await lstat(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  if (link === null) return { kind: 'file', path };
  let real = path;
  let info = link;
  if (link.isSymbolicLink()) {
    try {
      real = await realpath(path);
      info = await stat(real);
    } catch (error) {
      if (!isMissing(error)) throw error;
      throw refusal(
        path,
        'is a link to a file that does not exist (Splitbook writes through a link, never over it)',
      );
    }
  }
  if (info.isFile()) return { kind: 'file', path: real };
  if (info.isDirectory()) throw refusal(path, 'is a folder: name a file in it');
  if (info.isCharacterDevice() || info.isFIFO()) {
    if (streams) return { kind: 'stream', path: real };
    throw refusal(
      path,
      `is ${info.isFIFO() ? 'a pipe' : 'a device'}: a backup is a database file and needs a regular file`,
    );
  }
  if (info.isBlockDevice())
    throw refusal(path, 'is a disk device: Splitbook writes to files, never over a device');
  throw refusal(path, 'is a socket or another special file, not a file Splitbook can write');
}

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}

function refusal(path: string, why: string) {
  return problem('validation', 400, 'Cannot write there', `${path} ${why}.`);
}

/**
 * Runs `produce` on a stream to `outFile` (see outputTarget): for a file, a hidden temporary file in its
 * folder, renamed at the end; for a device or pipe, the target itself. On any failure the stream is
 * destroyed, the temporary file removed, and the first real cause (a SQLite error, ENOSPC, a
 * cancellation) re-thrown; a stream error is never left unhandled.
 */
export async function writeFileAtomically<T>(
  outFile: string,
  produce: (out: Writable) => Promise<T>,
): Promise<T> {
  const target = await outputTarget(outFile, { streams: true });
  const temp =
    target.kind === 'file'
      ? join(
          dirname(target.path),
          `.${basename(target.path)}.${randomBytes(6).toString('hex')}.partial`,
        )
      : null;
  // A device or a pipe is opened as it is ('w' truncates neither); a temporary file must be new.
  const out = createWriteStream(temp ?? target.path, { flags: temp ? 'wx' : 'w' });
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
    if (temp) await rename(temp, target.path);
    return result;
  } catch (error) {
    out.destroy();
    await finished(out).catch(() => undefined);
    if (temp) await rm(temp, { force: true });
    const cause =
      streamError && !(error instanceof Error && error.name === 'ProblemError')
        ? streamError
        : error;
    // ENOSPC, raw, says nothing a user can act on; the cache's own "disk is full" names the wrong file.
    if (storageFailure(cause) === 'full')
      throw new ProblemError(
        diskFullProblem(
          target.path,
          temp ? 'Nothing was left behind.' : 'It got part of the output.',
        ),
      );
    throw cause;
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
