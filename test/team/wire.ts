// A raw WebSocket client of the team server speaking Hocuspocus's frames by hand, to see exactly which bytes a member receives.
import WebSocket from 'ws';

const AUTH = 2;
const SYNC = 0;
const QUERY_AWARENESS = 3;
const AUTH_TOKEN = 0;
export const AUTH_PERMISSION_DENIED = 1;
export const AUTH_AUTHENTICATED = 2;
export const SYNC_STEP1 = 0;
export const SYNC_UPDATE = 2;

function varUint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    out.push(0x80 | (rest & 0x7f));
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

function varBytes(bytes: Uint8Array): Uint8Array {
  return concat(Uint8Array.from(varUint(bytes.byteLength)), bytes);
}

function varString(text: string): Uint8Array {
  return varBytes(new TextEncoder().encode(text));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

export const authFrame = (doc: string, token: string) =>
  concat(varString(doc), Uint8Array.from([AUTH, AUTH_TOKEN]), varString(token));
/** SyncStep1 with an empty state vector: "send me everything". */
export const syncStep1Frame = (doc: string) =>
  concat(varString(doc), Uint8Array.from([SYNC, SYNC_STEP1]), varBytes(Uint8Array.from([0])));
export const updateFrame = (doc: string, update: Uint8Array) =>
  concat(varString(doc), Uint8Array.from([SYNC, SYNC_UPDATE]), varBytes(update));
export const queryAwarenessFrame = (doc: string) =>
  concat(varString(doc), Uint8Array.from([QUERY_AWARENESS]));

/** A frame as the server sent it: its document, message type and the rest. */
export interface Frame {
  doc: string;
  type: number;
  body: Uint8Array;
  raw: Uint8Array;
}

function readFrame(raw: Uint8Array): Frame {
  let at = 0;
  const readUint = () => {
    let value = 0;
    let shift = 1;
    for (;;) {
      const byte = raw[at] ?? 0;
      at += 1;
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
      shift *= 128;
    }
  };
  const length = readUint();
  const doc = new TextDecoder().decode(raw.subarray(at, at + length));
  at += length;
  const type = readUint();
  return { doc, type, body: raw.subarray(at), raw };
}

export interface RawClient {
  frames: Frame[];
  closed: Promise<{ code: number; reason: string }>;
  send(frame: Uint8Array): void;
  close(): void;
  /** Whether any received byte sequence contains `text` (UTF-8). */
  received(text: string): boolean;
}

export async function rawClient(url: string): Promise<RawClient> {
  const ws = new WebSocket(url);
  const frames: Frame[] = [];
  ws.on('message', (data: Buffer) => frames.push(readFrame(new Uint8Array(data))));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    frames,
    closed,
    send: (frame) => ws.send(frame),
    close: () => ws.close(),
    received: (text) => {
      const needle = Buffer.from(text, 'utf8');
      return frames.some((frame) => Buffer.from(frame.raw).includes(needle));
    },
  };
}
