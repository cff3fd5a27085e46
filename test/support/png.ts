// Test support: a real PNG made in memory (zlib's deflate and crc32, no image library), striped so a
// screenshot of it shows where it is drawn; and a loopback server that serves such images.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A width × height RGB PNG of horizontal bands in `colour` and white. `noise` fills the pixels with
 * pseudo-random values instead, so it barely compresses (a large file for the size limits).
 */
export function stripedPng(
  width: number,
  height: number,
  colour: [number, number, number],
  noise = false,
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // truecolour
  const raw = Buffer.alloc((width * 3 + 1) * height);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0; // no filter
    const band = Math.floor(y / 16) % 2 === 0;
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        // xorshift32: integer arithmetic only (a multiplication would lose bits past 2^53).
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        raw[row + 1 + x * 3 + c] = noise ? seed & 0xff : band ? (colour[c] ?? 0) : 255;
      }
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export type ImageServer = {
  url: string;
  /** Paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
};

/** Serves `images` (path → bytes) on loopback as image/png; any other path is a 404 page in HTML. */
export async function serveImages(images: Record<string, Buffer>): Promise<ImageServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const image = images[path];
    if (image) res.writeHead(200, { 'content-type': 'image/png' }).end(image);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
