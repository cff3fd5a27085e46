// The review commands: `changes` prints what changed since the last review (or a date), `review` marks a store reviewed.
import { ChangesInput } from '#shared/contract/index';
import type { Core } from '#core/index';
import type { Io } from './commands';

/** Plain text a scheduled job can mail: one block per store, one line per change. */
export async function printChanges(
  core: Core,
  io: Io,
  storeId: string | null,
  since: string | null,
): Promise<number> {
  const report = await core.services.review.changes(ChangesInput.parse({ storeId, since }));
  if (report.stores.length === 0) {
    io.out(storeId ? `No store with id ${storeId}.` : 'No stores yet.');
    return storeId ? 1 : 0;
  }
  for (const store of report.stores) {
    const window = since
      ? `since ${since}`
      : store.reviewedAt
        ? `since the review of ${store.reviewedAt}`
        : 'since the first sync (never reviewed)';
    io.out(
      `${store.storeName} (${store.storeId}): ${store.count} change${store.count === 1 ? '' : 's'} ${window}`,
    );
    const lines = report.lines.filter((l) => l.storeId === store.storeId);
    const print = (line: (typeof lines)[number]) =>
      io.out(
        `  ${line.at.slice(0, 16).replace('T', ' ')}  ${line.testTitle} [${line.testId}]: ${line.summary}`,
      );
    lines.filter((l) => l.own === null).forEach(print);
    // The user's own edits are not changes to review: listed apart, after them.
    if (store.ownCount > 0) {
      io.out(`  Your edits (${store.ownCount}), not counted above:`);
      lines.filter((l) => l.own !== null).forEach(print);
    }
  }
  return 0;
}

export async function markReviewed(core: Core, io: Io, storeId: string): Promise<number> {
  const { reviewedAt } = await core.services.review.markReviewed({ storeId });
  io.out(`Marked ${storeId} reviewed at ${reviewedAt}.`);
  return 0;
}
