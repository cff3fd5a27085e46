// A shared store's single values (owner, plan, decision settings) and sign-offs: the last writer wins, and every reader sees who and when.
import type * as Y from 'yjs';
import type { z } from 'zod';
import type { DecisionCall, DecisionSettingsPatch } from '../domain/decisions/schemas';
import {
  type MemberName,
  type SignOff,
  StampedOwner,
  StampedPlan,
  StampedSettings,
  StampedSignOff,
  mapKey,
  splitKey,
  MemberName as MemberNameSchema,
} from './layout';

import {
  checkActor,
  checkTestId,
  parsed,
  storeMap,
  testMap,
  TeamValueError,
  type Actor,
  type Records,
  type Stamped,
} from './records';

// ---------- single values: the last writer wins ----------

function writeStamped(doc: Y.Doc, map: Records, kind: string, value: unknown, actor: Actor): void {
  doc.transact(() => {
    for (const [key] of [...map.entries()]) if (splitKey(key).kind === kind) map.delete(key);
    map.set(mapKey(kind, actor.by), { value, by: actor.by, at: actor.at });
  });
}

function readStamped<T extends z.ZodType>(
  map: Records,
  kind: string,
  schema: T,
): z.infer<T> | null {
  let best: (z.infer<T> & { by: string; at: string }) | null = null;
  for (const [key, raw] of map.entries()) {
    if (splitKey(key).kind !== kind) continue;
    const value = parsed(schema, raw) as (z.infer<T> & { by: string; at: string }) | null;
    if (!value) continue;
    if (!best || later(value, best)) best = value;
  }
  return best;
}

/** Whether a stamped write is later than another: its instant, then its writer's name (a fixed order). */
function later(a: { by: string; at: string }, b: { by: string; at: string }): boolean {
  const ta = Date.parse(a.at);
  const tb = Date.parse(b.at);
  if (ta !== tb) return ta > tb;
  return a.by > b.by;
}

export function setOwner(doc: Y.Doc, testId: string, owner: MemberName | null, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  if (owner !== null && !MemberNameSchema.safeParse(owner).success) {
    throw new TeamValueError(`"${owner}" is not a valid member name.`);
  }
  writeStamped(doc, testMap(doc, testId), 'owner', owner, actor);
}

export function ownerOf(doc: Y.Doc, testId: string): Stamped<MemberName | null> | null {
  return readStamped(testMap(doc, testId), 'owner', StampedOwner);
}

/** A test's own planned length (7–365 days; null: none of its own), as decisions.setPlan takes it. */
export function setPlan(
  doc: Y.Doc,
  testId: string,
  plannedDays: number | null,
  actor: Actor,
): void {
  checkActor(actor);
  checkTestId(testId);
  if (plannedDays !== null && !StampedPlan.shape.value.safeParse(plannedDays).success) {
    throw new TeamValueError('A planned length is a whole number of days from 7 to 365.');
  }
  writeStamped(doc, testMap(doc, testId), 'plan', plannedDays, actor);
}

export function planOf(doc: Y.Doc, testId: string): Stamped<number | null> | null {
  return readStamped(testMap(doc, testId), 'plan', StampedPlan);
}

/** The store's decision settings (its override of the global ones), replaced whole. */
export function setDecisionSettings(doc: Y.Doc, patch: DecisionSettingsPatch, actor: Actor): void {
  checkActor(actor);
  const result = StampedSettings.shape.value.safeParse(patch);
  if (!result.success) throw new TeamValueError('These decision settings are out of bounds.');
  writeStamped(doc, storeMap(doc), 'settings', result.data, actor);
}

export function decisionSettingsOf(doc: Y.Doc): Stamped<DecisionSettingsPatch> | null {
  return readStamped(storeMap(doc), 'settings', StampedSettings);
}

// ---------- sign-off: proposed, then approved by NAME on DATE ----------

export type SignOffState = SignOff & { state: 'proposed' | 'approved'; by: MemberName; at: string };

export function signOffOf(doc: Y.Doc, testId: string): SignOffState | null {
  const stamped = readStamped(testMap(doc, testId), 'signOff', StampedSignOff);
  if (!stamped?.value) return null;
  const state = stamped.value.approvedBy === null ? 'proposed' : 'approved';
  return { ...stamped.value, state, by: stamped.by, at: stamped.at };
}

/** The sign-off's last write, a withdrawal (value null) included: who changed it and when. */
export function signOffStampOf(doc: Y.Doc, testId: string): Stamped<SignOff | null> | null {
  return readStamped(testMap(doc, testId), 'signOff', StampedSignOff);
}

/** Proposes a call for sign-off; a new proposal replaces an earlier one, approved or not. */
export function proposeSignOff(doc: Y.Doc, testId: string, call: DecisionCall, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  const value: SignOff = {
    call,
    proposedBy: actor.by,
    proposedAt: actor.at,
    approvedBy: null,
    approvedAt: null,
  };
  writeStamped(doc, testMap(doc, testId), 'signOff', value, actor);
}

/**
 * Approves the proposed call. `call` must be the one proposed, so an approval never lands on a
 * proposal its approver did not see; with no proposal, the call is proposed and approved at once.
 */
export function approveSignOff(doc: Y.Doc, testId: string, call: DecisionCall, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  const current = signOffOf(doc, testId);
  if (current && current.call !== call) {
    throw new TeamValueError(
      `The call proposed for sign-off is "${current.call}", not "${call}": propose it again first.`,
    );
  }
  const value: SignOff = {
    call,
    proposedBy: current?.proposedBy ?? actor.by,
    proposedAt: current?.proposedAt ?? actor.at,
    approvedBy: actor.by,
    approvedAt: actor.at,
  };
  writeStamped(doc, testMap(doc, testId), 'signOff', value, actor);
}

/** Withdraws the sign-off (proposed or approved): the call is not signed off any more. */
export function withdrawSignOff(doc: Y.Doc, testId: string, actor: Actor): void {
  checkActor(actor);
  checkTestId(testId);
  writeStamped(doc, testMap(doc, testId), 'signOff', null, actor);
}
