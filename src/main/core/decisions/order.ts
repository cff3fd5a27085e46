// The calls' display order and which need the consultant, as the Decisions view and the CLI group them.
import {
  CALL_ORDER,
  DECISION_CALLS,
  needsCall,
  type DecisionCall,
} from '#shared/domain/decisions/index';

export { CALL_ORDER, needsCall };

/** Every call with a count of zero. */
export function emptyCallCounts(): Record<DecisionCall, number> {
  return Object.fromEntries(DECISION_CALLS.map((call) => [call, 0])) as Record<
    DecisionCall,
    number
  >;
}
