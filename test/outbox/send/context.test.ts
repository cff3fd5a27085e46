// What every sender shares: how an API error reads (later, no, maybe applied), the push's context (the
// active campaigns listed once, a write per transaction told to the UI), and the writes ending an attempt.
import { describe, expect, it } from 'vitest';
import { ApiError, type ApiErrorKind } from '#core/api/index';
import { cachedTest } from '#core/db/cache/local-copies';
import { CONFLICT_NOTE } from '#core/outbox/model';
import { recordEdit } from '#core/outbox/queue';
import {
  confirmEdit,
  holdConflict,
  isTransient,
  mayHaveBeenApplied,
  problemOf,
  statusOf,
} from '#core/outbox/kinds/outcome';
import { markReadOnly, outboxRows, readOnlyReason } from '#core/db/user/outbox';
import { pendingRecord } from '#core/outbox/store';
import { LAUNCHED, NOW, STORE, servedStore, testWith } from '../support';

function apiError(kind: ApiErrorKind, status: number | null, retryable = true): ApiError {
  return new ApiError({
    kind,
    status,
    title: 'The store said no',
    detail: 'Because.',
    retryable,
    method: 'PATCH',
    path: '/tests/x',
    host: 'store.example',
  });
}

describe('an API error', () => {
  it('says "later" for rate limits, the network, timeouts and 5xx; "no" for other refusals', () => {
    for (const error of [
      apiError('rate-limited', 429),
      apiError('network', null),
      apiError('timeout', null),
      apiError('unauthorized', 401),
      apiError('http', 503),
    ])
      expect(isTransient(error)).toBe(true);
    for (const error of [apiError('http', 400), apiError('http', 403), apiError('http', 409)])
      expect(isTransient(error)).toBe(false);
    expect(isTransient(new Error('a bug'))).toBe(false);
  });

  it('may have been applied when no answer came after sending, not when the connection was refused', () => {
    expect(mayHaveBeenApplied(apiError('timeout', null))).toBe(true);
    expect(mayHaveBeenApplied(apiError('http', 502))).toBe(true);
    expect(mayHaveBeenApplied(apiError('network', null, false))).toBe(true);
    expect(mayHaveBeenApplied(apiError('network', null, true))).toBe(false);
    expect(mayHaveBeenApplied(apiError('rate-limited', 429))).toBe(false);
  });

  it("reads a refusal in the store's own words", () => {
    expect(problemOf(apiError('http', 422))).toMatchObject({
      status: 422,
      title: 'The store said no',
      detail: 'Because.',
    });
    expect(statusOf(apiError('http', 404))).toBe(404);
    expect(statusOf(new Error('x'))).toBeNull();
    expect(problemOf(new Error('boom'))).toMatchObject({ status: 500, detail: 'boom' });
  });
});

describe("a push's context", () => {
  it('lists the active campaigns once, counting the request', async () => {
    const store = await servedStore();
    const ctx = store.send();
    const first = await ctx.activeCampaigns();
    const second = await ctx.activeCampaigns();
    expect(second).toBe(first);
    expect(ctx.counts.requests).toBe(1);
    expect(store.requests.map((r) => r.path)).toEqual(['/campaigns/active']);
  });

  it('runs each write in one transaction and tells the UI once it is done', async () => {
    const store = await servedStore();
    const ctx = store.send();
    expect(() =>
      ctx.tx(() => {
        markReadOnly(store.db, STORE, 'x', NOW);
        throw new Error('half way');
      }),
    ).toThrow('half way');
    expect(readOnlyReason(store.db, STORE)).toBeNull();
    expect(ctx.counts.changes).toBe(0);
    ctx.tx(() => markReadOnly(store.db, STORE, 'x', NOW));
    expect(ctx.counts.changes).toBe(1);
  });
});

describe('the end of an attempt', () => {
  it("a conflict holds the record's rows as one, its local copy rebased", async () => {
    const store = await servedStore();
    const test = testWith(store, LAUNCHED);
    for (const title of ['A', 'B'])
      recordEdit(
        store.db,
        {
          storeId: STORE,
          kind: 'test',
          recordId: test.id,
          server: test,
          changes: { title },
          base: { title: test.title },
          baseUpdatedAt: test.updatedAt,
        },
        NOW,
      );
    const record = pendingRecord(store.db, STORE, 'test', test.id);
    if (!record) throw new Error('no record');
    const conflict = {
      fields: { title: { base: test.title, mine: 'B', theirs: 'C' } },
      theirsUpdatedAt: null,
      gone: false,
    };
    expect(holdConflict(store.send(), record, conflict)).toBe('conflict');
    expect(outboxRows(store.db, STORE).map((r) => [r.state, r.changes, r.note])).toEqual([
      ['conflict', { title: 'B' }, CONFLICT_NOTE],
    ]);
    expect(cachedTest(store.db, STORE, test.id)?.title).toBe('B');
  });

  it("a confirmed edit goes with its server copy, the store's record is cached, and the key may write", async () => {
    const store = await servedStore();
    const test = testWith(store, LAUNCHED);
    recordEdit(
      store.db,
      {
        storeId: STORE,
        kind: 'test',
        recordId: test.id,
        server: test,
        changes: { title: 'Mine' },
        base: { title: test.title },
        baseUpdatedAt: test.updatedAt,
      },
      NOW,
    );
    markReadOnly(store.db, STORE, 'an old refusal', NOW);
    const record = pendingRecord(store.db, STORE, 'test', test.id);
    if (!record) throw new Error('no record');
    let wrote = false;
    expect(confirmEdit(store.send(), record, () => void (wrote = true))).toBe('sent');
    expect(wrote).toBe(true);
    expect(outboxRows(store.db, STORE)).toEqual([]);
    expect(readOnlyReason(store.db, STORE)).toBeNull();
  });
});
