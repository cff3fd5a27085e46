// How a decision reads in the window: each call's chip (fixed colour, a symbol and words, never colour
// alone), the one-sentence verdict, and the words of its method, plan and timing.
import {
  type Decision,
  type DecisionCall,
  type DecisionLook,
  type DecisionPlan,
  type PlanSource,
} from '#shared/domain/decisions/schemas';
import { aboutDays } from '#shared/domain/decisions/words';
import { formatDate } from '../lib/format';

export type CallStyle = {
  /** The chip's words: short enough for a list column. */
  label: string;
  /** Fewer letters for the narrowest list; the chip's title keeps the full words. */
  compact: string;
  /** A symbol beside the words, so no call rests on its colour. */
  symbol: string;
};

export const CALL_STYLE: Record<DecisionCall, CallStyle> = {
  ship: { label: 'Ship variant', compact: 'Ship', symbol: '▲' },
  keep_control: { label: 'Keep control', compact: 'Control', symbol: '▼' },
  no_difference: { label: 'No difference', compact: 'No diff.', symbol: '=' },
  keep_running: { label: 'Keep running', compact: 'Running', symbol: '→' },
  cannot_conclude: { label: "Can't conclude", compact: 'No call', symbol: '∅' },
  check_data: { label: 'Check data', compact: 'Check', symbol: '⚠' },
  paused: { label: 'Paused', compact: 'Paused', symbol: '‖' },
};

/** "Ship the variant: conversion rate +12.4% (…)": the call and its reason, one sentence. */
export function verdictSentence(decision: Pick<Decision, 'words' | 'reason'>): string {
  return `${decision.words}: ${decision.reason}`;
}

/** "about 9 days · around May 28, 2026" for a call still to come. */
export function whenText(days: number | null, date: string | null): string | null {
  if (days === null) return null;
  return date === null ? aboutDays(days) : `${aboutDays(days)} · around ${formatDate(date)}`;
}

/** How each source of a planned length reads after "28-day plan". */
export const PLAN_SOURCE_TEXT: Record<PlanSource, string> = {
  'automatically-end-at': "the test's automatic end",
  test: "this test's own",
  store: "the store's default",
  setting: 'the default',
};

/** "28-day plan (the default) · ends May 28, 2026". */
export function planText(plan: DecisionPlan): string {
  const ends = plan.endDate === null ? '' : ` · ends ${formatDate(plan.endDate)}`;
  return `${plan.plannedDays}-day plan (${PLAN_SOURCE_TEXT[plan.source]})${ends}`;
}

/** "too short to detect ±5%: that would take about 41 days", or null when the plan is long enough (or unknown). */
export function tooShortText(plan: DecisionPlan, minEffect: number): string | null {
  if (!plan.tooShort || plan.neededDays === null) return null;
  const detects = plan.detectable === null ? '' : `; it detects about ±${percent(plan.detectable)}`;
  return `too short to detect ±${percent(minEffect)}: that would take ${aboutDays(plan.neededDays)}${detects}`;
}

/**
 * "changed on May 2, 2026: planned length 28 → 21 days (the store's settings); looks before then kept
 * the old settings", for each change after the test had data; null without one.
 */
export function planChangeText(plan: DecisionPlan): string | null {
  if (plan.changes.length === 0) return null;
  const each = plan.changes.map(
    (change) => `changed on ${formatDate(change.from)}: ${change.text}`,
  );
  return `${each.join('; ')} (recorded: looks before then kept the old settings)`;
}

/** "group sequential, |z| 3.02 vs boundary 2.93 on day 15", "always-valid, …", or null without a look. */
export function methodText(decision: Pick<Decision, 'method' | 'look'>): string | null {
  const look: DecisionLook | null = decision.look;
  if (decision.method === 'none' || look === null) return null;
  const z = Math.abs(look.z).toFixed(2);
  const against =
    look.boundary === null ? 'no budget left' : `boundary ${look.boundary.toFixed(2)}`;
  const name = decision.method === 'always-valid' ? 'always-valid' : 'group sequential';
  return `${name}, |z| ${z} vs ${against} on day ${look.day}`;
}

/** 0.05 → "5%", 0.025 → "2.5%". */
export function percent(fraction: number): string {
  return `${Number((fraction * 100).toFixed(1))}%`;
}
