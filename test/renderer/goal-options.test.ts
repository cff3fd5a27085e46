// The Edit tab's goals by name (issue 44, item 11: the raw "click-through-rate" shown), sent in the
// store's own spelling; and which sides have a screenshot the window may ask for.
import { describe, expect, test } from 'vitest';
import { goalOptions } from '../../src/renderer/src/edits/goalOptions';
import { screenshotSides } from '../../src/renderer/src/results/screenshots';

describe('goalOptions', () => {
  test('every goal by its name, the current one first, never the raw value as its label', () => {
    const options = goalOptions('click-through-rate', ['conversion-rate', 'click-through-rate']);
    expect(options[0]).toEqual({ value: 'click-through-rate', label: 'Click-through rate' });
    expect(options.map((o) => o.label)).toEqual([
      'Click-through rate',
      'Conversion rate',
      'Revenue per visitor',
      'Average order value',
      'Add-to-cart rate',
    ]);
    expect(options.some((o) => o.label === o.value)).toBe(false);
  });

  test("sends the store's spelling: one option per goal, whatever the spellings seen", () => {
    const options = goalOptions('clickThroughRate', ['clickThroughRate', 'conversionRate']);
    expect(options.filter((o) => o.label === 'Click-through rate')).toEqual([
      { value: 'clickThroughRate', label: 'Click-through rate' },
    ]);
    expect(options.find((o) => o.label === 'Conversion rate')?.value).toBe('conversionRate');
  });

  test('a goal Splitbook does not know is kept, and said to be unknown', () => {
    expect(goalOptions('scroll-depth', [])[0]).toEqual({
      value: 'scroll-depth',
      label: 'scroll-depth (a goal Splitbook does not know)',
    });
  });
});

describe('screenshotSides', () => {
  const side = (screenshotUrl: unknown) => ({ screenshotUrl }) as never;
  test('the control, then the variant, each only with an http(s) address', () => {
    expect(
      screenshotSides({
        control: side('https://a.example/c.png'),
        variant: side('http://b/v.png'),
      }),
    ).toEqual([
      { side: 'control', label: 'Control', url: 'https://a.example/c.png' },
      { side: 'variant', label: 'Variant', url: 'http://b/v.png' },
    ]);
    expect(
      screenshotSides({
        control: side('javascript:alert(1)'),
        variant: side('data:image/png;base64,AA'),
      }),
    ).toEqual([]);
    expect(screenshotSides({ control: side(null), variant: null })).toEqual([]);
  });
});
