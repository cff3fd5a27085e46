// dispatch(): the one translation from a channel name and raw input to an Envelope, shared by the Electron and browser hosts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dispatch } from '../../src/main/hosts/common/dispatch';
import { createCore } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import { CHANNELS } from '#shared/contract/index';
import { PROBLEM_TYPES, problem } from '#shared/problem';
import { createTestCore } from './support/test-core';

describe('dispatch', () => {
  it('calls the method named by the channel with the parsed input (defaults filled in) and wraps its data', async () => {
    const { core, calls } = createTestCore();
    const envelope = await dispatch(core, 'tests.list', { storeId: 'acme' });
    expect(envelope.ok).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.channel).toBe('tests.list');
    expect(calls[0]?.input).toMatchObject({
      storeId: 'acme',
      limit: 500,
      cursor: null,
      sort: { key: 'updatedAt', dir: 'desc' },
    });
  });

  it('finds a service for every contract channel (an empty input is run or refused by its schema, never a 404)', async () => {
    const { core, calls } = createTestCore();
    for (const channel of CHANNELS) {
      const envelope = await dispatch(core, channel, {});
      if (envelope.ok) expect(calls.at(-1)?.channel).toBe(channel);
      else expect(envelope.problem.status).toBe(400);
    }
  });

  it.each([
    'nope',
    'app.nope',
    'nope.info',
    'app.info.extra',
    '__proto__.toString',
    'app.constructor',
    'x'.repeat(500),
  ])('answers 404 for the unknown channel %s, without calling the core', async (channel) => {
    const { core, calls } = createTestCore();
    const envelope = await dispatch(core, channel, {});
    expect(envelope).toMatchObject({
      ok: false,
      problem: { type: PROBLEM_TYPES.notFound, status: 404, title: 'Unknown method' },
    });
    expect(calls).toHaveLength(0);
    if (!envelope.ok) expect(envelope.problem.detail.length).toBeLessThan(200);
  });

  it('answers 400 with each failing field and its message when the input does not match the schema', async () => {
    const { core, calls } = createTestCore();
    const envelope = await dispatch(core, 'stores.add', {
      name: '',
      baseUrl: 'ftp://x',
      apiKey: 'k',
    });
    expect(envelope.ok).toBe(false);
    if (envelope.ok) return;
    expect(envelope.problem).toMatchObject({
      type: PROBLEM_TYPES.validation,
      status: 400,
      title: 'Invalid input',
    });
    expect(envelope.problem.detail).toContain('name: Name is required');
    expect(envelope.problem.detail).toContain('baseUrl: API base URL must start with https://');
    expect(calls).toHaveLength(0);
  });

  it('names the root "(input)" when the input is not even an object', async () => {
    const { core } = createTestCore();
    const envelope = await dispatch(core, 'stores.remove', 'acme');
    expect(envelope.ok ? '' : envelope.problem.detail).toMatch(/^\(input\): /);
  });

  it('passes a ProblemError thrown by the service through as its problem', async () => {
    const notFound = problem('notFound', 404, 'Store not found', 'There is no store with id acme.');
    const { core } = createTestCore({ 'stores.remove': () => Promise.reject(notFound) });
    expect(await dispatch(core, 'stores.remove', { storeId: 'acme' })).toEqual({
      ok: false,
      problem: notFound.problem,
    });
  });

  it('turns any other error into a generic 500 whose detail carries nothing from the error, and logs it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { core } = createTestCore({
      'sync.cancel': () =>
        Promise.reject(new Error('connect failed for https://shop.example?key=sk_live_SECRET')),
    });
    const envelope = await dispatch(core, 'sync.cancel', { storeId: 'acme' });
    expect(envelope).toMatchObject({
      ok: false,
      problem: { type: PROBLEM_TYPES.internal, status: 500, title: 'Unexpected error' },
    });
    expect(JSON.stringify(envelope)).not.toContain('SECRET');
    expect(log).toHaveBeenCalledOnce();
    log.mockRestore();
  });

  it('treats a service that throws synchronously like one that rejects', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { core } = createTestCore({
      'app.info': () => {
        throw new TypeError('boom');
      },
    });
    expect(await dispatch(core, 'app.info', {})).toMatchObject({
      ok: false,
      problem: { status: 500 },
    });
    log.mockRestore();
  });
});

describe('dispatch with the real core', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'splitbook-dispatch-'));
  const ready = createCore({
    dataDir,
    secrets: createMemorySecretStore(),
    host: 'browser',
    version: '9.9.9',
    demo: { tests: 20 },
  });
  afterAll(async () => {
    await (await ready).close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers app.info with the host and version it was created with', async () => {
    const envelope = await dispatch(await ready, 'app.info', undefined);
    expect(envelope).toMatchObject({
      ok: true,
      data: { host: 'browser', version: '9.9.9', keychain: { available: true } },
    });
  });

  it("carries the core's own problems (an unknown store) as data", async () => {
    const envelope = await dispatch(await ready, 'tests.get', { storeId: 'missing', testId: 't1' });
    expect(envelope.ok).toBe(false);
    if (!envelope.ok) expect(envelope.problem.status).toBe(404);
  });

  it('round-trips the demo store: open it, list its (empty, unsynced) tests', async () => {
    const core = await ready;
    const opened = await dispatch(core, 'stores.openDemo', {});
    expect(opened).toMatchObject({ ok: true, data: { kind: 'demo' } });
    const page = await dispatch(core, 'tests.list', {
      storeId: opened.ok ? (opened.data as { id: string }).id : '',
    });
    expect(page).toMatchObject({ ok: true, data: { rows: [], nextCursor: null, total: 0 } });
  });
});
