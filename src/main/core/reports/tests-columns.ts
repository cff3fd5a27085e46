// The `tests` report's columns: each one's name, kind, unit and source, in the order its rows give them.
import { text, type Column } from './types';

export const TESTS_COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('test_id', 'UUID'),
  text('title', 'text'),
  text('status', 'as sent (unknown values kept)'),
  text('stage', 'as sent'),
  text('goal', 'as sent'),
  text('device', 'as sent'),
  text('visitor_option', 'as sent'),
  text('campaign', 'campaign name (id when the name is missing)'),
  text('tags', 'tag names joined with "; " (a line break inside a name becomes a space)'),
  text('priority', 'as sent'),
  text('surface_area', 'as sent'),
  { name: 'impact', kind: 'integer', unit: 'integer as sent', source: 'API' },
  { name: 'effort', kind: 'integer', unit: 'integer as sent', source: 'API' },
  { name: 'implemented', kind: 'boolean', unit: 'true/false', source: 'API' },
  { name: 'created_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
  { name: 'start_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
  { name: 'end_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
  {
    name: 'days_running',
    kind: 'integer',
    unit: 'whole days from start_at to end_at (or the export time)',
    source: 'Splitbook',
  },
  {
    name: 'control_traffic',
    kind: 'integer',
    unit: "the control side's traffic integer as sent (unit not stated by the API)",
    source: 'API',
  },
  {
    name: 'variant_traffic',
    kind: 'integer',
    unit: "the variant side's traffic integer as sent; empty without a variant",
    source: 'API',
  },
  { name: 'control_visitors', kind: 'integer', unit: 'visitors', source: 'API' },
  { name: 'variant_visitors', kind: 'integer', unit: 'visitors', source: 'API' },
  text(
    'goal_metric',
    'cvr, acr, ctr, rpv or aov; empty for a goal Splitbook does not know',
    'Splitbook',
  ),
  {
    name: 'control_goal_value',
    kind: 'number',
    unit: 'fraction for cvr/acr/ctr (API percent ÷ 100), store currency for rpv/aov',
    source: 'API',
  },
  { name: 'variant_goal_value', kind: 'number', unit: 'as control_goal_value', source: 'API' },
  {
    name: 'relative_lift',
    kind: 'fraction',
    unit: "fraction (the API's lift in percent ÷ 100)",
    source: 'API',
  },
  {
    name: 'api_variant_p_win',
    kind: 'fraction',
    unit: "0..1, the API's variantProbabilityWin",
    source: 'API',
  },
  text('tier', "the goal's lifecycle tier as sent"),
  text('leading', "the lifecycle's leadingVariant as sent"),
  text('hypothesis', 'text'),
  {
    name: 'p_win',
    kind: 'fraction',
    unit: '0..1, P(variant beats control) on the goal rate (cvr/acr/ctr only)',
    source: 'Splitbook',
  },
  {
    name: 'lift_ci_low',
    kind: 'fraction',
    unit: "fraction, lower end of the goal lift's 95% credible interval (rpv/aov: approximate)",
    source: 'Splitbook',
  },
  {
    name: 'lift_ci_high',
    kind: 'fraction',
    unit: 'fraction, upper end of that interval',
    source: 'Splitbook',
  },
  {
    name: 'srm_p',
    kind: 'number',
    unit: 'p-value of the sample-ratio test (0..1); empty when not judged',
    source: 'Splitbook',
  },
  text('alerts', 'data-quality alert codes joined with "; "', 'Splitbook'),
  text(
    'note',
    'your note on the test (kept on this computer, never sent to the API); empty when none',
    'user',
  ),
  text(
    'decision',
    "Splitbook's call on the goal: ship, keep_control, no_difference, keep_running, cannot_conclude, check_data or paused; empty without results or a variant",
    'Splitbook',
  ),
  text('decision_reason', 'the call in one line, with its figures', 'Splitbook'),
  {
    name: 'days_to_decision',
    kind: 'integer',
    unit: 'whole days until a call is more likely than not (keep_running); empty when not waiting',
    source: 'Splitbook',
  },
  {
    name: 'goal_lift',
    kind: 'fraction',
    unit: "fraction, the goal's relative lift from the sides' totals (the list's Lift)",
    source: 'Splitbook',
  },
  {
    name: 'goal_p_win',
    kind: 'fraction',
    unit: "0..1, the chance the variant beats the control on the goal, from the totals (the list's P(win); rpv/aov: approximate, none before 7 days)",
    source: 'Splitbook',
  },
  text(
    'guardrail',
    'the guardrail metric that decided the call (one clearly worse, else the first watched): cvr, rpv, aov, acr or ctr; empty when none is watched',
    'Splitbook',
  ),
  text('guardrail_verdict', "worse, unclear, better or not-judged, at the call's look with the call's boundary", 'Splitbook'),
  {
    name: 'guardrail_lift',
    kind: 'fraction',
    unit: "fraction, the guardrail's relative lift at that look",
    source: 'Splitbook',
  },
  {
    name: 'guardrail_ci_low',
    kind: 'fraction',
    unit: "fraction, lower end of the guardrail's interval at the call's boundary (the same error control as the call)",
    source: 'Splitbook',
  },
  {
    name: 'guardrail_ci_high',
    kind: 'fraction',
    unit: 'fraction, upper end of that interval',
    source: 'Splitbook',
  },
];

/**
 * Added after TESTS_COLUMNS only when a store the export covers is shared with a team (a solo
 * export's columns, and so its bytes, stay as they were). Empty on a test without a sign-off and on
 * every test of a store not shared.
 */
export const SIGN_OFF_COLUMNS: readonly Column[] = [
  text(
    'sign_off',
    "approved, proposed, or stale (signed off on another call than today's decision: sign_off_call says which); empty when the call is not signed off",
    'user',
  ),
  text('sign_off_by', 'the member who approved it, or who proposed it when not yet approved', 'user'),
  {
    name: 'sign_off_at',
    kind: 'datetime',
    unit: 'ISO 8601, UTC: when it was approved, or proposed when not yet approved',
    source: 'user',
  },
  text('sign_off_call', 'the call signed off (as decision), kept with the sign-off', 'user'),
];
