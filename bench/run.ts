// `npm run bench`: runs every benchmark in turn and prints its figures. Not part of the pass/fail suite.
import { benchIngest, benchSync } from './sync.bench';
import { benchListQuery } from './list-query.bench';
import { benchRenderer } from './renderer.bench';
import { benchStatistics } from './statistics.bench';
import { benchReview } from './review.bench';

const only = process.argv.slice(2);
const benches: Record<string, () => Promise<void>> = {
  sync: benchSync,
  ingest: benchIngest,
  'list-query': benchListQuery,
  renderer: benchRenderer,
  statistics: benchStatistics,
  review: benchReview,
};

for (const [name, run] of Object.entries(benches)) {
  if (only.length > 0 && !only.includes(name)) continue;
  await run();
}
