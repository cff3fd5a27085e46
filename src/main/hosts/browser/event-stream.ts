// The core's events as server-sent events: `event: <name>` + `data: <json>`, with heartbeat comments.
import type { ServerResponse } from 'node:http';
import type { Core } from '#core/index';
import { SECURITY_HEADERS } from './http-utils';

export const HEARTBEAT_MS = 15_000;

/** Streams every core event to `res` until the client goes away; returns a function that ends the stream. */
export function streamEvents(
  res: ServerResponse,
  core: Core,
  heartbeatMs: number = HEARTBEAT_MS,
): () => void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // A first comment lets the client's EventSource report "open" at once.
  res.write(': connected\n\n');

  // JSON.stringify never emits a raw newline, so one `data:` line carries the whole payload.
  const unsubscribe = core.subscribe((event) => {
    res.write(`event: ${event.name}\ndata: ${JSON.stringify(event.payload)}\n\n`);
  });
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(heartbeat);
    unsubscribe();
  };
  res.on('close', stop);
  return () => {
    stop();
    res.end();
  };
}
