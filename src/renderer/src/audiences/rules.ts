// Audience rules as sentences: "country in SE, NO", "cart value greater than 100".
import type { DefaultAudience, Rule } from '../../../shared/api';

const OPERATOR_WORDS: Record<string, string> = {
  in: 'in',
  not_in: 'not in',
  equals: 'is',
  eq: 'is',
  not_equals: 'is not',
  neq: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  greater_than: 'greater than',
  gt: 'greater than',
  less_than: 'less than',
  lt: 'less than',
  matches: 'matches',
};

/** snake_case, kebab-case or camelCase as words: "cart_value" -> "cart value". */
export function words(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .trim();
}

export function operatorText(operator: string): string {
  return OPERATOR_WORDS[operator] ?? words(operator);
}

function selectorText(selector: unknown): string | null {
  if (selector === null || selector === undefined) return null;
  if (typeof selector === 'string') return selector;
  if (typeof selector === 'object' && 'value' in selector && typeof selector.value === 'string')
    return selector.value;
  return JSON.stringify(selector);
}

export function ruleText(rule: Rule): string {
  const selector = selectorText(rule.selector);
  const subject = selector ? `${words(rule.dimension)} (${selector})` : words(rule.dimension);
  const values = rule.values.length > 0 ? rule.values.join(', ') : '(no value)';
  return `${subject} ${operatorText(rule.operator)} ${values}`;
}

export function defaultAudienceText(audience: DefaultAudience): string {
  return `${words(audience.dimension)} ${operatorText(audience.operator)} ${audience.value}`;
}
