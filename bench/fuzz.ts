// `npx tsx bench/fuzz.ts [runs] [seed]`: the parser fuzz of test/sync/fuzz.test.ts at length (default
// 1,000 runs, a fresh seed each time), printing the runs and what became of the records. Exits 1 with
// the shrunk counterexample and its seed when a record is lost or a sync fails. Not in bench/run.ts.
import fc from 'fast-check';
import {
  FuzzCase,
  runFuzzCase,
  startFuzzServer,
  type CaseOutcome,
} from '../test/support/fuzz-sync';
import { fmt, printFigures } from './support';

const runs = Number(process.argv[2] ?? 1000);
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error('usage: npx tsx bench/fuzz.ts [runs] [seed]');
  process.exit(2);
}

const server = await startFuzzServer();
const outcomes: Record<string, number> = {};
const changes: Record<string, number> = {};
const total: CaseOutcome['tests'] & {
  [K in keyof CaseOutcome['results'] as `results ${K}`]: number;
} = {
  cached: 0,
  setAsideById: 0,
  setAsideByPosition: 0,
  'results cached': 0,
  'results setAside': 0,
  'results none': 0,
};
let done = 0;
const started = performance.now();
console.log(`fuzz: ${runs} runs, seed ${seed}`);
const result = await fc.check(
  fc.asyncProperty(FuzzCase, async (c) => {
    const outcome = await runFuzzCase(server, c);
    done += 1;
    outcomes[outcome.outcome] = (outcomes[outcome.outcome] ?? 0) + 1;
    for (const m of c.mutations) {
      const name = `${m.on} ${m.change.kind}`;
      changes[name] = (changes[name] ?? 0) + 1;
    }
    total.cached += outcome.tests.cached;
    total.setAsideById += outcome.tests.setAsideById;
    total.setAsideByPosition += outcome.tests.setAsideByPosition;
    total['results cached'] += outcome.results.cached;
    total['results setAside'] += outcome.results.setAside;
    total['results none'] += outcome.results.none;
    if (done % 100 === 0)
      console.log(`  ${done} runs, ${fmt((performance.now() - started) / 1000)} s`);
  }),
  { seed, numRuns: runs, endOnFailure: true },
);
await server.close();
const seconds = (performance.now() - started) / 1000;

printFigures(`fuzz: ${done} runs in ${fmt(seconds)} s (seed ${seed})`, [
  ...Object.entries(outcomes).map(([name, n]) => ({ name: `sync ${name}`, value: String(n) })),
  { name: 'tests cached', value: String(total.cached) },
  { name: 'tests set aside by id', value: String(total.setAsideById) },
  { name: 'tests set aside by position', value: String(total.setAsideByPosition) },
  { name: 'results cached', value: String(total['results cached']) },
  { name: 'results set aside', value: String(total['results setAside']) },
  { name: 'results none (404)', value: String(total['results none']) },
]);
printFigures(
  'mutations applied',
  Object.entries(changes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => ({ name, value: String(n) })),
);
if (result.failed) {
  console.error(
    `\nFAILED after ${result.numRuns} runs (seed ${seed}, path ${result.counterexamplePath}):`,
  );
  console.error(
    result.errorInstance instanceof Error ? result.errorInstance.message : result.errorInstance,
  );
  process.exit(1);
}
console.log('\nEvery record was cached or set aside with a reason; no neighbour was lost.');
