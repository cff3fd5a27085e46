// The programme's tests: stores synced from the simulator over loopback HTTP into a real data folder, and
// what the programme should say, worked out independently from the bridge's own test details and calls.
import type { Test } from '#shared/api/index';
import type { ConcludedTestRow } from '#shared/contract/index';
import type { Decision } from '#shared/domain/decisions/index';
import {
  CONCLUDING_CALLS,
  type ConcludedTest,
  type MeasuredLift,
} from '#shared/domain/programme/index';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import type { Core } from '#core/types';
import { addSimulatorStores, allTestRows, startCore, tempDir } from '../support/core';

export type SyncedProgramme = {
  simulator: Simulator;
  served: ServedSimulator;
  data: { path: string; remove(): void };
  /** The running core (a test that restarts it puts the new one here). */
  core: Core;
  /** Store ids by name. */
  ids: Record<string, string>;
  close(): Promise<void>;
};

/** Two stores (Acme, Nordic) synced into a fresh data folder; the core keeps running. */
export async function syncedProgramme(
  prefix: string,
  options: { seed?: number; pushOnEdit?: boolean } = {},
): Promise<SyncedProgramme> {
  const simulator = createSimulator({
    seed: options.seed ?? 13,
    stores: [
      { name: 'Acme', tests: 90 },
      { name: 'Nordic', tests: 50 },
    ],
  });
  const served = await serveSimulator(simulator);
  const data = tempDir(prefix);
  const core = await startCore(data.path, {
    clock: () => simulator.now(),
    ...(options.pushOnEdit === undefined ? {} : { pushOnEdit: options.pushOnEdit }),
  });
  const ids = await addSimulatorStores(core, simulator, served.url, { sessionOnly: false });
  const synced: SyncedProgramme = {
    simulator,
    served,
    data,
    core,
    ids,
    async close() {
      await synced.core.close();
      await served.close().catch(() => undefined);
      data.remove();
    },
  };
  return synced;
}

export type Detailed = {
  storeId: string;
  storeName: string;
  test: Test;
  decision: Decision | null;
};

/** Every cached test of the stores with its record and its call, as the test detail gives them. */
export async function detailedTests(core: Core, storeIds: readonly string[]): Promise<Detailed[]> {
  const out: Detailed[] = [];
  for (const storeId of storeIds) {
    for (const row of await allTestRows(core, storeId)) {
      const detail = await core.services.tests.get({ storeId, testId: row.id });
      out.push({
        storeId,
        storeName: detail.storeName,
        test: detail.test,
        decision: detail.decision,
      });
    }
  }
  return out;
}

/** The domain's view of a concluded test, read from its detail (null when its call does not conclude). */
export function concludedFromDetail(d: Detailed): ConcludedTest | null {
  const decision = d.decision;
  if (decision === null || !CONCLUDING_CALLS.includes(decision.call)) return null;
  return {
    storeId: d.storeId,
    testId: d.test.id,
    title: d.test.title,
    call: decision.call,
    lift: decision.look?.lift ?? decision.goal?.lift ?? null,
    days: decision.look?.day ?? null,
    decidedOn: decision.look?.date ?? null,
    tags: d.test.tags.map((t) => t.name),
    surfaceArea: d.test.surfaceArea,
    goal: d.test.goal,
  };
}

/** A call's lift on the log scale and its standard error, from the look's interval (θ ± c·se). */
export function lookLift(decision: Decision): MeasuredLift | null {
  const look = decision.look;
  if (look === null) return null;
  const c = look.boundary ?? 1.959963984540054;
  const se = (Math.log1p(look.high) - Math.log1p(look.low)) / (2 * c);
  return se > 0 ? { theta: Math.log1p(look.lift), se } : null;
}

/** A concluded row without the fields the domain does not take. */
export function asDomain(row: ConcludedTestRow): ConcludedTest {
  return {
    storeId: row.storeId,
    testId: row.testId,
    title: row.title,
    call: row.call,
    lift: row.lift,
    days: row.days,
    decidedOn: row.decidedOn,
    tags: row.tags,
    surfaceArea: row.surfaceArea,
    goal: row.goal,
  };
}
