// A sign-off as the contract says it (team.signOff, team.proposeSignOff): the layer's state, each field null when the call is not signed off.
import type { TeamSignOff } from '#shared/contract/index';
import { signOffOf } from '#shared/team/values';
import type * as Y from 'yjs';

export function signOffOut(doc: Y.Doc, testId: string): TeamSignOff {
  const state = signOffOf(doc, testId);
  return {
    testId,
    state: state?.state ?? null,
    call: state?.call ?? null,
    proposedBy: state?.proposedBy ?? null,
    proposedAt: state?.proposedAt ?? null,
    approvedBy: state?.approvedBy ?? null,
    approvedAt: state?.approvedAt ?? null,
  };
}
