// The client report's sign-off sentence, every case: a store not shared says nothing, not signed off, proposed, approved (by the proposer or another), and stale (approved or proposed on another call than today's).
import { describe, expect, it } from 'vitest';
import { signOffLine, signOffText } from '#core/reports/client/sign-off';
import { reportFormat } from '#core/reports/client/format';
import type { ReportSignOff } from '#core/team/sign-offs';

const fmt = reportFormat('en-GB');
const base: ReportSignOff = {
  state: 'proposed',
  call: 'ship',
  proposedBy: 'bob',
  proposedAt: '2026-11-30T09:00:00.000Z',
  approvedBy: null,
  approvedAt: null,
  stale: false,
};
const approved: ReportSignOff = {
  ...base,
  state: 'approved',
  approvedBy: 'alice',
  approvedAt: '2026-12-01T10:00:00.000Z',
};

describe('the sign-off under the call', () => {
  it('says nothing for a store not shared (no line: the solo report is byte for byte as before)', () => {
    expect(signOffText(undefined, 'ship', fmt)).toBeNull();
    expect(signOffLine(undefined, 'ship', fmt)).toBe('');
  });

  it('not signed off, proposed, approved', () => {
    expect(signOffText(null, 'ship', fmt)).toBe('Not yet approved.');
    expect(signOffText(base, 'ship', fmt)).toBe(
      'Proposed by bob on 30 Nov 2026; not yet approved.',
    );
    expect(signOffText(approved, 'ship', fmt)).toBe(
      'Approved by alice on 1 Dec 2026 (proposed by bob).',
    );
    expect(signOffText({ ...approved, proposedBy: 'alice' }, 'ship', fmt)).toBe(
      'Approved by alice on 1 Dec 2026.',
    );
  });

  it('a sign-off of another call than today’s is not an approval of today’s', () => {
    expect(signOffText({ ...approved, stale: true }, 'keep_running', fmt)).toBe(
      'Not yet approved: the sign-off (approved by alice on 1 Dec 2026) was for “Ship the variant”, and the call is now “Keep running”.',
    );
    expect(signOffText({ ...base, stale: true }, 'paused', fmt)).toBe(
      'Not yet approved: the sign-off (proposed by bob on 30 Nov 2026) was for “Ship the variant”, and the call is now “Paused”.',
    );
  });

  it('escapes a member name in the HTML line', () => {
    expect(signOffLine({ ...approved, approvedBy: '<b>x</b>' }, 'ship', fmt)).toBe(
      '<div class="basis sign-off">Approved by &lt;b&gt;x&lt;/b&gt; on 1 Dec 2026 (proposed by bob).</div>',
    );
  });
});
