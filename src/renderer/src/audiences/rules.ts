// Audience rules as sentences: "country in SE, NO", "cart value greater than 100".
import type { DefaultAudience, Rule } from '#shared/api/index';
import { selectorText } from '#shared/domain/selector';

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

/** A rule on one line (list cells, tooltips); its selector as shared/domain/selector reads it. */
export function ruleText(rule: Rule): string {
  const selector = selectorText(rule.selector);
  const values = rule.values.length > 0 ? rule.values.join(', ') : '(no value)';
  const text = `${words(rule.dimension)} ${operatorText(rule.operator)} ${values}`;
  return selector ? `${text} · ${selector}` : text;
}

export function defaultAudienceText(audience: DefaultAudience): string {
  return `${words(audience.dimension)} ${operatorText(audience.operator)} ${audience.value}`;
}
