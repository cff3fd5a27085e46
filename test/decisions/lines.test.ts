// decisions.lines, what the Decisions view asks for: the same calls as decisions.list, in the same order
// and with the same values, each with only the fields its line draws (the basis is on the test's detail).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { DecisionLine, type DecisionList, type DecisionRow } from '#shared/contract/index';
import type { Core } from '#core/types';
import { CALL_ORDER, needsCall } from '#core/decisions/order';
import { addSimulatorStores, startCore, tempDir } from '../support/core';

const data = tempDir('splitbook-decision-lines-');
const simulator = createSimulator({
  seed: 23,
  stores: [
    { name: 'Acme', tests: 60 },
    { name: 'Nordic', tests: 40 },
    { name: 'Baltic', tests: 30 },
  ],
});
let served: ServedSimulator;
let core: Core;

beforeAll(async () => {
  served = await serveSimulator(simulator);
  core = await startCore(data.path, { clock: () => simulator.now() });
  await addSimulatorStores(core, simulator, served.url);
}, 120_000);

afterAll(async () => {
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

/** The order as the Decisions view has always made it, written out plainly from the full rows. */
function referenceOrder(list: DecisionList, positions: Map<string, number>): DecisionRow[] {
  const byTitle = (a: DecisionRow, b: DecisionRow) =>
    a.title.localeCompare(b.title) || (a.testId < b.testId ? -1 : a.testId > b.testId ? 1 : 0);
  const byStore = (a: DecisionRow, b: DecisionRow) =>
    (positions.get(a.storeId) ?? 0) - (positions.get(b.storeId) ?? 0) ||
    (a.storeId < b.storeId ? -1 : a.storeId > b.storeId ? 1 : 0);
  const rank = (row: DecisionRow) => CALL_ORDER.indexOf(row.call);
  const rows = [...list.rows].reverse();
  return [
    ...rows
      .filter((row) => needsCall(row.call))
      .sort((a, b) => byStore(a, b) || rank(a) - rank(b) || byTitle(a, b)),
    ...rows
      .filter((row) => !needsCall(row.call))
      .sort(
        (a, b) =>
          (a.daysToDecision ?? Infinity) - (b.daysToDecision ?? Infinity) ||
          byStore(a, b) ||
          byTitle(a, b),
      ),
  ];
}

describe('decisions.lines', () => {
  it('lists the calls of decisions.list in its order, each line with the values of its row', async () => {
    const stores = await core.services.stores.list({});
    for (const storeId of [null, ...stores.map((s) => s.id)]) {
      const list = await core.services.decisions.list({ storeId });
      const lines = await core.services.decisions.lines({ storeId });
      expect(list.rows.length).toBeGreaterThan(0);
      expect(lines.counts).toEqual(list.counts);
      expect(lines.needCall).toBe(list.needCall);
      expect(lines.rows).toEqual(list.rows.map((row) => DecisionLine.strip().parse(row)));
      // Exactly the line's fields: the long basis text stays in the cache.
      for (const line of lines.rows)
        expect(Object.keys(line).sort()).toEqual(Object.keys(DecisionLine.shape).sort());
    }
  });

  it('keeps the view order: needing a call by store and call, then running by days, titles in the locale order', async () => {
    const stores = await core.services.stores.list({});
    const positions = new Map(stores.map((s, i) => [s.id, i]));
    const list = await core.services.decisions.list({ storeId: null });
    expect(new Set(list.rows.map((r) => r.storeId)).size).toBeGreaterThan(1);
    const expected = referenceOrder(list, positions).map((r) => `${r.storeId}/${r.testId}`);
    expect(list.rows.map((r) => `${r.storeId}/${r.testId}`)).toEqual(expected);
    const lines = await core.services.decisions.lines({ storeId: null });
    expect(lines.rows.map((r) => `${r.storeId}/${r.testId}`)).toEqual(expected);
  });
});
