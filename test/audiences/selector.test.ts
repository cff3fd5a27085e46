// An audience rule's selector is never shown as JSON: known shapes read as a phrase, others as key: value pairs.
import { describe, expect, it } from 'vitest';
import { ruleText as reportRuleText } from '#core/reports/lists-report';
import { describeSelector, selectorText } from '#shared/domain/selector';

const rule = (selector: unknown) => ({
  dimension: 'element_clicked',
  operator: 'equals',
  values: ['true'],
  selector,
});

describe('describeSelector', () => {
  it('has nothing to say for no selector', () => {
    expect(describeSelector(null)).toBeNull();
    expect(selectorText(undefined)).toBeNull();
  });

  it('reads known shapes as a phrase', () => {
    expect(describeSelector({ type: 'css', value: '.size-guide' })).toEqual({
      kind: 'phrase',
      label: 'CSS selector',
      value: '.size-guide',
    });
    expect(selectorText({ type: 'XPath', value: '//button' })).toBe('XPath //button');
    expect(selectorText({ type: 'shadow', value: '#a' })).toBe('shadow selector #a');
    expect(selectorText({ value: '#buy' })).toBe('selector #buy');
    expect(selectorText('#buy')).toBe('selector #buy');
    expect(selectorText(3)).toBe('selector 3');
  });

  it('reads an unknown object as key: value pairs, nested keys joined with dots', () => {
    const selector = {
      kind: 'element',
      match: { attribute: 'data-role', equals: 'buy' },
      within: ['main', 'aside'],
      depth: 2,
      optional: null,
      steps: [{ tag: 'div' }, { tag: 'a' }],
    };
    expect(describeSelector(selector)).toEqual({
      kind: 'fields',
      fields: [
        { key: 'kind', value: 'element' },
        { key: 'match.attribute', value: 'data-role' },
        { key: 'match.equals', value: 'buy' },
        { key: 'within', value: 'main, aside' },
        { key: 'depth', value: '2' },
        { key: 'optional', value: 'not set' },
        { key: 'steps[1].tag', value: 'div' },
        { key: 'steps[2].tag', value: 'a' },
      ],
    });
    expect(selectorText({ type: 'css', value: '.x', scope: 'page' })).toBe(
      'type: css; value: .x; scope: page',
    );
    expect(selectorText({})).toBe('value: (none)');
    expect(selectorText(['#a', '#b'])).toBe('value: #a, #b');
  });

  it('is what exports print, so a report never holds JSON either', () => {
    for (const selector of [{ type: 'css', value: '.size-guide' }, { a: { b: [1, 2] } }]) {
      expect(reportRuleText(rule(selector))).not.toMatch(/[{}"]/);
    }
    expect(reportRuleText(rule({ type: 'css', value: '.size-guide' }))).toBe(
      'element_clicked equals true (CSS selector .size-guide)',
    );
    expect(reportRuleText(rule({ a: { b: [1, 2] } }))).toBe(
      'element_clicked equals true (a.b: 1, 2)',
    );
  });
});
