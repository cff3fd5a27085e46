// The call's sign-off in a client report, for a store shared with a team: who approved it and when, who proposed it, or that it is not yet approved. A store not shared shows nothing (its report's bytes are as they were).
import { CALL_WORDS, type DecisionCall } from '#shared/domain/decisions/schemas';
import type { ReportSignOff } from '../../team/sign-offs';
import { esc } from './escape';
import type { ReportFormat } from './format';

/**
 * The sentence under the call: undefined when the store is not shared (nothing is said), null when
 * shared and the call not signed off. A sign-off of another call than today's does not stand for it.
 */
export function signOffText(
  signOff: ReportSignOff | null | undefined,
  call: DecisionCall,
  fmt: ReportFormat,
): string | null {
  if (signOff === undefined) return null;
  if (signOff === null) return 'Not yet approved.';
  const proposed = `proposed by ${signOff.proposedBy} on ${fmt.date(signOff.proposedAt)}`;
  const approved =
    signOff.approvedBy === null || signOff.approvedAt === null
      ? null
      : `approved by ${signOff.approvedBy} on ${fmt.date(signOff.approvedAt)}`;
  if (signOff.stale) {
    return `Not yet approved: the sign-off (${approved ?? proposed}) was for “${CALL_WORDS[signOff.call]}”, and the call is now “${CALL_WORDS[call]}”.`;
  }
  if (approved === null)
    return `Proposed by ${signOff.proposedBy} on ${fmt.date(signOff.proposedAt)}; not yet approved.`;
  const by =
    signOff.proposedBy === signOff.approvedBy ? '' : ` (proposed by ${signOff.proposedBy})`;
  return `${approved.charAt(0).toUpperCase()}${approved.slice(1)}${by}.`;
}

/** The sentence as a line of the call's box ('' when the store is not shared). */
export function signOffLine(
  signOff: ReportSignOff | null | undefined,
  call: DecisionCall,
  fmt: ReportFormat,
): string {
  const text = signOffText(signOff, call, fmt);
  return text === null ? '' : `<div class="basis sign-off">${esc(text)}</div>`;
}
