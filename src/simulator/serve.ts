// CLI: serve the simulator on loopback for manual runs and other processes (`npm run mock-api -- --port 8080`).
// The first stdout line is one JSON object {baseUrl, stores: [{name, apiKey, readOnly}]}; then one line
// per request: method, path, status, milliseconds (never a key). A line `advance-minutes N` on stdin moves its clock.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createSimulator, serveSimulator } from './index';

const USAGE =
  'Usage: mock-api [--port N] [--host H] [--seed N] [--rate R (requests/s per key)] [--tests N (per store)] [--latency MS or MIN-MAX] [--stores N (named Store 1…N; default: the sample stores)]';

function integerOption(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    process.stderr.write(`--${name} must be an integer >= ${min}, got '${raw}'\n${USAGE}\n`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        rate: { type: 'string' },
        tests: { type: 'string' },
        latency: { type: 'string' },
        stores: { type: 'string' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  }
  const rate = integerOption('rate', values.rate, 1);
  // Added to every answer, like a real server's round trip: a fixed delay or a range drawn from.
  const latency = (values.latency ?? '0')
    .split('-')
    .map((part) => integerOption('latency', part, 0) ?? 0);
  const minLatency = latency[0] ?? 0;
  const maxLatency = latency[1] ?? minLatency;
  const storeCount = integerOption('stores', values.stores, 1);
  const simulator = createSimulator({
    stores:
      storeCount === undefined
        ? undefined
        : Array.from({ length: storeCount }, (_, i) => ({ name: `Store ${i + 1}` })),
    seed: integerOption('seed', values.seed, 0),
    testsPerStore: integerOption('tests', values.tests, 0),
    // R requests per second per key: a bucket of R, refilled at R per second.
    rate: rate === undefined ? null : { capacity: rate, refillPerSecond: rate },
    faults: { latencyMs: [minLatency, maxLatency] },
    onRequest: ({ method, path, status, ms }) =>
      process.stdout.write(`${method} ${path} ${status} ${Math.round(ms)}ms\n`),
  });
  const server = await serveSimulator(simulator, {
    port: integerOption('port', values.port, 0) ?? 0,
    host: values.host,
  });
  const stores = simulator.stores.map(({ name, apiKey, readOnly }) => ({ name, apiKey, readOnly }));
  process.stdout.write(`${JSON.stringify({ baseUrl: server.url, stores })}\n`);

  // A driving process (a benchmark) moves the simulated clock with a line `advance-minutes N` on stdin.
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [command, amount] = line.trim().split(/\s+/);
    const minutes = Number(amount);
    if (command === 'advance-minutes' && Number.isFinite(minutes)) {
      simulator.advanceDays(minutes / (24 * 60));
    }
  });

  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main();
