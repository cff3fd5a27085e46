// The sync thread's port (sync/thread/link.ts): each side calls the other's table through the shared proxy
// and answers through the shared serve, over a real MessageChannel; answers find their own call whatever
// their order, a ProblemError crosses as itself, and a side that goes away ends every call still waiting.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createLink, type Link } from '#core/sync/thread/link';
import {
  MAIN_METHODS,
  THREAD_METHODS,
  type LinkMessage,
  type MainMethods,
  type ThreadMethods,
} from '#core/sync/thread/protocol';
import { problem, ProblemError } from '#shared/problem';
import type { SyncReport } from '#shared/contract/index';
import type { MethodNames, MethodTable } from '#shared/rpc';
import { noCounters } from '#core/sync/pull/context';

const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

function end<Remote extends MethodTable<Remote>>(
  port: MessagePort,
  names: MethodNames<Remote>,
  local: object,
): Link<Remote> {
  ports.push(port);
  const link = createLink<Remote>({
    names,
    local,
    post: (message) => port.postMessage(message),
  });
  port.on('message', (message: LinkMessage) => link.receive(message));
  return link;
}

function report(storeId: string): SyncReport {
  const at = '2026-03-02T09:00:00.000Z';
  return { storeId, outcome: 'ok', startedAt: at, finishedAt: at, problem: null, ...noCounters() };
}

describe('the sync thread link', () => {
  it('calls both ways, each answer settling its own call even when answers come out of order', async () => {
    const { port1, port2 } = new MessageChannel();
    const finish = new Map<string, (r: SyncReport) => void>();
    const asked: string[] = [];
    const threadSide: ThreadMethods = {
      engine: {
        run: (storeId) =>
          new Promise<SyncReport>((resolve) => finish.set(storeId, resolve)).then(async (r) => {
            // The thread asks the main side for the key while it runs.
            asked.push(await thread.remote.keys.get({ storeId, storeName: storeId.toUpperCase() }));
            return r;
          }),
        cancel: async (storeId) => finish.has(storeId),
        cancelAll: async () => undefined,
        push: async () => null,
      },
    };
    const mainSide: MainMethods = { keys: { get: async ({ storeName }) => `key of ${storeName}` } };
    const main = end<ThreadMethods>(port1, THREAD_METHODS, mainSide);
    const thread = end<MainMethods>(port2, MAIN_METHODS, threadSide);

    const a = main.remote.engine.run('a');
    const b = main.remote.engine.run('b');
    expect(await main.remote.engine.cancel('a')).toBe(true);
    expect(main.pending()).toBe(2);
    finish.get('b')?.(report('b'));
    expect((await b).storeId).toBe('b');
    finish.get('a')?.(report('a'));
    expect((await a).storeId).toBe('a');
    expect(asked).toEqual(['key of B', 'key of A']);
    expect(main.pending()).toBe(0);
  });

  it('rejects with the ProblemError the other side threw, and names anything else by its message', async () => {
    const { port1, port2 } = new MessageChannel();
    const refused = problem('keychain', 503, 'No API key for this store', 'Add the key again.');
    const main = end<MainMethods>(port1, MAIN_METHODS, {});
    end<ThreadMethods>(port2, THREAD_METHODS, {
      keys: {
        get: async ({ storeId }: { storeId: string }) => {
          if (storeId === 'lost') throw refused;
          throw new TypeError('boom');
        },
      },
    });
    const error = await main.remote.keys
      .get({ storeId: 'lost', storeName: 'Lost' })
      .catch((e: unknown) => e);
    expect(error instanceof ProblemError && error.problem).toEqual(refused.problem);
    await expect(main.remote.keys.get({ storeId: 'x', storeName: 'X' })).rejects.toMatchObject({
      problem: { title: 'The sync stopped unexpectedly', detail: 'boom' },
    });
  });

  it('answers a channel the other side does not serve with a problem, and abandons calls left waiting', async () => {
    const { port1, port2 } = new MessageChannel();
    const main = end<ThreadMethods>(port1, THREAD_METHODS, {});
    end<MainMethods>(port2, MAIN_METHODS, { engine: {} });
    await expect(main.remote.engine.push('acme')).rejects.toMatchObject({
      problem: { detail: 'The other side has no method engine.push.' },
    });

    const { port1: lonely } = new MessageChannel();
    const orphan = end<ThreadMethods>(lonely, THREAD_METHODS, {});
    const waiting = orphan.remote.engine.run('acme');
    expect(orphan.pending()).toBe(1);
    orphan.abandon(
      problem('internal', 500, 'The sync stopped unexpectedly', 'exit code 3').problem,
    );
    await expect(waiting).rejects.toMatchObject({ problem: { detail: 'exit code 3' } });
    expect(orphan.pending()).toBe(0);
  });
});
