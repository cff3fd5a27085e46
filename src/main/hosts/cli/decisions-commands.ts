// The `decisions` command: Splitbook's call on each test's goal, the calls needing the consultant first.
import type { DecisionRow } from '#shared/contract/index';
import type { Core } from '#core/index';
import type { Io } from './commands';

/**
 * Plain text a scheduled job can mail, one block per store in the store list's order: each test's call
 * in words, its title, the one-line reason and, for a test still running, the days to its decision.
 * `--json` prints the rows themselves (DecisionRow[]) instead.
 */
export async function printDecisions(
  core: Core,
  io: Io,
  storeId: string | null,
  json: boolean,
): Promise<number> {
  const list = await core.services.decisions.list({ storeId });
  if (json) {
    io.out(JSON.stringify(list.rows, null, 2));
    return 0;
  }
  const stores = (await core.services.stores.list({})).filter(
    (store) => storeId === null || store.id === storeId,
  );
  if (stores.length === 0) {
    io.out('No stores yet.');
    return 0;
  }
  for (const store of stores) {
    const rows = list.rows.filter((row) => row.storeId === store.id);
    const need = rows.filter((row) => row.call !== 'keep_running').length;
    const running = rows.length - need;
    io.out(
      rows.length === 0
        ? `${store.name} (${store.id}): no decisions (no launched test with results)`
        : `${store.name} (${store.id}): ${need} need${need === 1 ? 's' : ''} a call, ${running} keep${running === 1 ? 's' : ''} running`,
    );
    for (const row of rows) {
      io.out(`  ${row.words}: ${row.title}${waiting(row)}`);
      io.out(`    ${row.reason.replace(/\s*[\r\n]+\s*/g, ' ')}`);
    }
  }
  return 0;
}

/** " (9 days to decision)" for a test still waiting for its call; nothing otherwise. */
function waiting(row: DecisionRow): string {
  if (row.daysToDecision === null) return '';
  return ` (${row.daysToDecision} day${row.daysToDecision === 1 ? '' : 's'} to decision)`;
}
