// The results decoder's thread (decoder.ts): reads each answer it is sent and hands back the prepared
// write, its packed bytes moved rather than copied.
import { parentPort } from 'node:worker_threads';
import type { DecodeAnswer, DecodeRequest } from './decoder';
import { readResults } from './read-results';

const port = parentPort;
if (!port) throw new Error('sync/decode/worker.ts runs only as a worker thread');

port.on('message', ({ id, text, context }: DecodeRequest) => {
  let decoded: ReturnType<typeof readResults>;
  try {
    decoded = readResults(text, context);
  } catch (error) {
    port.postMessage({
      id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies DecodeAnswer);
    return;
  }
  const answer: DecodeAnswer = { id, decoded };
  const packed = decoded.kind === 'ok' ? decoded.value.packed : null;
  // Only bytes that own their whole buffer are moved: a small Buffer may share Node's pool.
  const movable =
    packed !== null && packed.byteOffset === 0 && packed.byteLength === packed.buffer.byteLength;
  port.postMessage(answer, movable ? [packed.buffer as ArrayBuffer] : []);
});
