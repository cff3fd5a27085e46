// `npm run bench`: runs every benchmark in turn and prints its figures. Not part of the pass/fail suite.
import { benchIngest, benchListing, benchSync } from './sync.bench';
import { benchSyncStores } from './sync-stores.bench';
import { benchListQuery } from './list-query.bench';
import { benchRenderer } from './renderer.bench';
import { benchStatistics } from './statistics.bench';
import { benchDecisions } from './decisions.bench';
import { benchDecisionsView } from './decisions-view.bench';
import { benchDecisionsRefresh } from './decisions-refresh.bench';
import { benchClientReport } from './client-report.bench';
import { benchStartup } from './startup.bench';
import { benchEdits } from './edits.bench';
import { benchReview } from './review.bench';
import { benchReports } from './reports.bench';
import { benchScale } from './scale.bench';
import { benchBridge } from './bridge.bench';
import { benchBackup } from './backup.bench';
import { benchTeam } from './team.bench';
import { benchLargeListing } from './large-listing.bench';

const only = process.argv.slice(2);
const benches: Record<string, () => Promise<void>> = {
  sync: benchSync,
  'sync-stores': benchSyncStores,
  listing: benchListing,
  ingest: benchIngest,
  'list-query': benchListQuery,
  renderer: benchRenderer,
  statistics: benchStatistics,
  decisions: benchDecisions,
  'decisions-view': benchDecisionsView,
  'decisions-refresh': benchDecisionsRefresh,
  'client-report': benchClientReport,
  startup: benchStartup,
  edits: benchEdits,
  review: benchReview,
  reports: benchReports,
  scale: benchScale,
  bridge: benchBridge,
  backup: benchBackup,
  team: benchTeam,
  'large-listing': benchLargeListing,
};

// An unknown name is an error, never a silent run of nothing.
const unknown = only.filter((name) => !Object.hasOwn(benches, name));
if (unknown.length > 0) {
  console.error(
    `Unknown benchmark${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Valid names: ${Object.keys(benches).join(', ')}.`,
  );
  process.exit(2);
}

for (const [name, run] of Object.entries(benches)) {
  if (only.length > 0 && !only.includes(name)) continue;
  await run();
}
