// A hostile answer: a JSON body that never ends, sent as fast as the client reads it.
import type { ServerResponse } from 'node:http';

/** Writes `[` followed by spaces for ever (respecting back-pressure) until the client goes away. */
export function endless(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write('[');
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let open = true;
  res.on('close', () => (open = false));
  const pump = () => {
    while (open && res.write(chunk));
    if (open) res.once('drain', pump);
  };
  pump();
}
