// "Ready for a call" in words: the one notice a background sync gives when it changed calls of a store
// (a desktop notification, the browser's, or a toast in the window), the same everywhere.
import type { DecisionsReady } from '../contract/decisions';

/** Tests named in the notice's body; more are counted. */
const LISTED = 3;

export type ReadyNotice = {
  /** "Acme: 2 tests ready for a call". */
  title: string;
  /** One line per test: its title and the call in words. */
  body: string;
  /** The test to open when the notice names only one; null: the Decisions view. */
  testId: string | null;
};

export function readyNotice(ready: DecisionsReady): ReadyNotice {
  const tests = ready.count === 1 ? 'test' : 'tests';
  const lines = ready.tests.slice(0, LISTED).map((test) => `${test.title} — ${test.words}`);
  const more = ready.count - lines.length;
  if (more > 0) lines.push(`and ${more.toLocaleString('en')} more`);
  return {
    title: `${ready.storeName}: ${ready.count.toLocaleString('en')} ${tests} ready for a call`,
    body: lines.join('\n'),
    testId: ready.count === 1 ? (ready.tests[0]?.testId ?? null) : null,
  };
}
