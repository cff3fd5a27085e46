// The parser fuzz at a fixed seed (issue 23, item 6): mutated records served over loopback and synced
// into a real SQLite cache are each cached or set aside with a reason, never a crash, and the valid
// records beside them are all cached. `npx tsx bench/fuzz.ts` runs it longer.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FuzzCase, runFuzzCase, startFuzzServer } from '../support/fuzz-sync';

let server: Awaited<ReturnType<typeof startFuzzServer>>;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(async () => {
  server = await startFuzzServer();
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await server.close();
});

it('caches or sets aside every mutated record, and caches every record beside it', async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(FuzzCase, async (c) => {
      runs += 1;
      await runFuzzCase(server, c);
    }),
    { seed: 23_6, numRuns: 50, endOnFailure: true },
  );
  expect(runs).toBe(50);
  expect(unhandled).toEqual([]);
}, 60_000);
