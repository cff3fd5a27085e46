// Records are validated one by one: a bad one is set aside with a readable reason, the others are kept.
import { describe, expect, it } from 'vitest';
import { Test } from '#shared/api/index';
import { parseRecords } from '#core/api/records';
import { testRecord } from './support/fixtures';

describe('parseRecords', () => {
  it('sets aside only the record that breaks the schema, with its id, path and reason', () => {
    const good = testRecord();
    const bad = testRecord({ period: 'two weeks' });
    const result = parseRecords(Test, [good, bad, testRecord()]);
    expect(result.items.map((t) => t.id)).toEqual([good.id, expect.any(String)]);
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]).toMatchObject({ id: bad.id, raw: bad });
    expect(result.rejected[0]?.error).toMatch(/^period: /);
  });

  it('names nested paths and the whole value when there is no path', () => {
    const nested = testRecord({
      control: { ...(testRecord().control as object), traffic: 'half' },
    });
    const result = parseRecords(Test, [nested, 42]);
    expect(result.rejected[0]?.error).toMatch(/^control\.traffic: /);
    expect(result.rejected[1]).toMatchObject({ id: null, raw: 42 });
    expect(result.rejected[1]?.error).toMatch(/^\(the whole value\): /);
  });

  it('keeps unknown enum values and unknown fields as sent', () => {
    const record = testRecord({ status: 'archived', stage: 'shipping', brandNewField: { a: 1 } });
    const result = parseRecords(Test, [record]);
    expect(result.rejected).toEqual([]);
    expect(result.items[0]).toMatchObject({
      status: 'archived',
      stage: 'shipping',
      brandNewField: { a: 1 },
    });
  });

  it('summarises many issues in one line', () => {
    const result = parseRecords(Test, [{ id: 'x' }]);
    const error = result.rejected[0]?.error ?? '';
    expect(error).not.toContain('\n');
    expect(error).toMatch(/and \d+ more$/);
  });
});
