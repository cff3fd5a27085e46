// Child process of the 20-store sync benchmark: the project's simulator serving N stores on loopback,
// each key with its own bucket of R requests a second, every answer delayed by the given latency, as
// `npm run mock-api -- --stores N --tests T --rate R --latency MIN-MAX` does. It also says which store
// each answer was for, which the benchmark needs to judge every store's rate: the first stdout line is
// JSON {baseUrl, stores: [{name, apiKey}]}, then one line per answer: the store's index and the status.
import { parseArgs } from 'node:util';
import { createSimulator, serveSimulator } from '#simulator/index';

const { values } = parseArgs({
  options: {
    stores: { type: 'string', default: '20' },
    tests: { type: 'string', default: '300' },
    rate: { type: 'string', default: '10' },
    latency: { type: 'string', default: '40-120' },
    seed: { type: 'string', default: '7' },
  },
});
const stores = Number(values.stores);
const rate = Number(values.rate);
const [low = 0, high = low] = values.latency.split('-').map(Number);
const simulator = createSimulator({
  seed: Number(values.seed),
  stores: Array.from({ length: stores }, (_, i) => ({ name: `Store ${i + 1}` })),
  testsPerStore: Number(values.tests),
  rate: { capacity: rate, refillPerSecond: rate },
  faults: { latencyMs: [low, high] },
});
const storeOfKey = new Map(simulator.stores.map((store, i) => [store.apiKey, i]));
const server = await serveSimulator(async (request) => {
  const key = /^Bearer\s+(\S+)/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  const response = await simulator.handler(request);
  process.stdout.write(`${storeOfKey.get(key) ?? -1} ${response.status}\n`);
  return response;
});
process.stdout.write(
  `${JSON.stringify({
    baseUrl: server.url,
    stores: simulator.stores.map(({ name, apiKey }) => ({ name, apiKey })),
  })}\n`,
);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
