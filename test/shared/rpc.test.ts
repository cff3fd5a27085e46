// The one proxy and the one serving function of every call mechanism (src/shared/rpc.ts): a proxy has
// exactly its table's methods, each calling its own channel; serve finds own methods only and answers data
// or a problem, never a thrown error; no walker of the contract keeps a cast of its own.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { METHOD_NAMES } from '#shared/channels';
import { contract, type Bridge, type Services } from '#shared/contract/index';
import { createProxy, lookup, serve, type Serving } from '#shared/rpc';
import {
  MAIN_METHODS,
  THREAD_METHODS,
  type MainMethods,
  type ThreadMethods,
} from '#core/sync/thread/protocol';
import type { Problem } from '#shared/problem';

/** A proxy's shape: each namespace's own method names, sorted, and whether each is a function. */
function shape(table: object) {
  return Object.fromEntries(
    Object.entries(table).map(([ns, methods]: [string, object]) => [
      ns,
      Object.entries(methods)
        .map(([name, fn]) => `${name}:${typeof fn}`)
        .sort(),
    ]),
  );
}

const listed = (names: Record<string, readonly string[]>) =>
  Object.fromEntries(
    Object.entries(names).map(([ns, list]) => [ns, list.map((n) => `${n}:function`).sort()]),
  );

describe('createProxy', () => {
  it("builds exactly the contract's namespaces and methods from the zod-free lists", () => {
    const proxy = createProxy<Omit<Bridge, 'on'>>(METHOD_NAMES, async () => null);
    expect(shape(proxy)).toEqual(
      Object.fromEntries(
        Object.entries(contract).map(([ns, methods]) => [
          ns,
          Object.keys(methods)
            .map((n) => `${n}:function`)
            .sort(),
        ]),
      ),
    );
    expect(Object.getPrototypeOf(proxy)).toBe(Object.prototype);
  });

  it("builds exactly the sync thread's two tables", () => {
    expect(shape(createProxy<ThreadMethods>(THREAD_METHODS, async () => null))).toEqual(
      listed(THREAD_METHODS),
    );
    expect(shape(createProxy<MainMethods>(MAIN_METHODS, async () => null))).toEqual(
      listed(MAIN_METHODS),
    );
    expect(listed(THREAD_METHODS)).toEqual({
      engine: ['cancel:function', 'cancelAll:function', 'push:function', 'run:function'],
    });
  });

  it('makes each method call its own channel with its one input, and resolve to what the call answers', async () => {
    const call = vi.fn(async (channel: string, input: unknown) => ({ channel, input }));
    const proxy = createProxy<Services>(METHOD_NAMES, call);
    for (const [ns, names] of Object.entries(METHOD_NAMES)) {
      for (const name of names) {
        call.mockClear();
        const method: unknown = Reflect.get(Reflect.get(proxy, ns), name);
        if (typeof method !== 'function') throw new Error(`no ${ns}.${name}`);
        const answer: unknown = await method({ marker: name }, 'ignored');
        expect(call).toHaveBeenCalledExactlyOnceWith(`${ns}.${name}`, { marker: name });
        expect(answer).toEqual({ channel: `${ns}.${name}`, input: { marker: name } });
      }
    }
  });

  it("passes a call's rejection through untouched", async () => {
    const failure = new Error('down');
    const proxy = createProxy<ThreadMethods>(THREAD_METHODS, () => Promise.reject(failure));
    await expect(proxy.engine.run('acme')).rejects.toBe(failure);
  });
});

describe('lookup', () => {
  const table = {
    app: {
      prefix: 'app:',
      async info(this: { prefix: string }, input: unknown) {
        return `${this.prefix}${String(input)}`;
      },
      version: '1.0',
    },
  };

  it('finds an own method and calls it on its namespace', async () => {
    const method = lookup(table, 'app.info');
    expect(await method?.('x')).toBe('app:x');
  });

  it.each([
    '',
    'app',
    'app.',
    '.info',
    'app.info.extra',
    'app.nope',
    'nope.info',
    'app.version',
    'app.toString',
    'app.constructor',
    '__proto__.toString',
    'constructor.name',
  ])('names nothing with %j', (channel) => {
    expect(lookup(table, channel)).toBeNull();
  });

  it('turns a synchronous throw into a rejection', async () => {
    const method = lookup(
      {
        app: {
          info: () => {
            throw new TypeError('boom');
          },
        },
      },
      'app.info',
    );
    await expect(method?.(null)).rejects.toThrow('boom');
  });
});

describe('serve', () => {
  const problem = (title: string): Problem => ({ type: 'test', title, status: 500, detail: '' });
  const serving: Serving = {
    unknown: (channel) => problem(`unknown ${channel}`),
    failed: (error) => problem(`failed ${error instanceof Error ? error.message : ''}`),
  };
  const table = {
    math: {
      double: async (n: number) => n * 2,
      fail: async () => Promise.reject(new Error('no')),
      throws: (): Promise<number> => {
        throw new Error('sync');
      },
    },
  };

  it('answers data, or the problem of an unknown channel, a rejection or a synchronous throw', async () => {
    expect(await serve(table, 'math.double', 21, serving)).toEqual({ ok: true, data: 42 });
    expect(await serve(table, 'math.half', 2, serving)).toEqual({
      ok: false,
      problem: problem('unknown math.half'),
    });
    expect(await serve(table, 'math.fail', null, serving)).toEqual({
      ok: false,
      problem: problem('failed no'),
    });
    expect(await serve(table, 'math.throws', null, serving)).toEqual({
      ok: false,
      problem: problem('failed sync'),
    });
  });

  it('calls the method with the input the server prepared, or not at all when it refuses it', async () => {
    const double = vi.fn(async (n: number) => n * 2);
    const parsing: Serving = {
      ...serving,
      input: (_channel, raw) =>
        typeof raw === 'string'
          ? { ok: true, data: Number(raw) }
          : { ok: false, problem: problem('NaN') },
    };
    expect(await serve({ math: { double } }, 'math.double', '4', parsing)).toEqual({
      ok: true,
      data: 8,
    });
    expect(await serve({ math: { double } }, 'math.double', 4, parsing)).toEqual({
      ok: false,
      problem: problem('NaN'),
    });
    expect(double).toHaveBeenCalledOnce();
  });
});

describe('the former walkers of the contract', () => {
  it.each([
    'src/preload/bridge.ts',
    'src/renderer/src/lib/bridge.ts',
    'src/renderer/src/lib/api.ts',
    'src/main/hosts/common/dispatch.ts',
    'src/main/core/create-core.ts',
    'src/main/core/sync/thread/engine.ts',
    'src/main/core/sync/thread/worker.ts',
    'src/main/core/sync/thread/link.ts',
  ])('%s casts nothing through unknown: it builds on createProxy and serve', (file) => {
    expect(readFileSync(file, 'utf8')).not.toMatch(/as unknown as/);
  });
});
