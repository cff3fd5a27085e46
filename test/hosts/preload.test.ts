// The preload: exactly one function per contract method, each on its own channel, and a typed `on` for contract events only.
import { relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { build } from 'vite';
import { contract, events } from '#shared/contract/index';
import { EVENT_CHANNEL } from '#shared/channels';
import { contextBridge, ipcRenderer, MOCKED } from './support/fake-electron';

vi.mock('electron', async () => import('./support/fake-electron'));

type ExposedApi = Record<string, unknown> & {
  on: (event: string, listener: (payload: unknown) => void) => () => void;
};

async function loadPreload(): Promise<ExposedApi> {
  await import('../../src/preload/index');
  return contextBridge.exposed.get('splitbook') as ExposedApi;
}

function method(api: ExposedApi, ns: string, name: string): (input: unknown) => Promise<unknown> {
  const table = api[ns] as Record<string, (input: unknown) => Promise<unknown>>;
  const fn = table[name];
  if (!fn) throw new Error(`no ${ns}.${name}`);
  return fn;
}

describe(`preload ${MOCKED}`, () => {
  it('exposes one object, window.splitbook, and nothing else', async () => {
    await loadPreload();
    expect([...contextBridge.exposed.keys()]).toEqual(['splitbook']);
  });

  it("has exactly the contract's namespaces and methods, plus on", async () => {
    const api = await loadPreload();
    const shape = Object.fromEntries(
      Object.entries(api).map(([k, v]) => [
        k,
        typeof v === 'function' ? 'function' : Object.keys(v as object).sort(),
      ]),
    );
    const expected = Object.fromEntries(
      Object.entries(contract).map(([ns, methods]) => [ns, Object.keys(methods).sort()]),
    );
    expect(shape).toEqual({ ...expected, on: 'function' });
  });

  it('makes each method invoke its own channel with its one input, and return what main answered', async () => {
    const api = await loadPreload();
    for (const [ns, methods] of Object.entries(contract)) {
      for (const name of Object.keys(methods)) {
        ipcRenderer.invoke.mockClear();
        const answer = await method(api, ns, name)({ marker: name });
        expect(ipcRenderer.invoke).toHaveBeenCalledExactlyOnceWith(`${ns}.${name}`, {
          marker: name,
        });
        expect(answer).toEqual({
          ok: true,
          data: { channel: `${ns}.${name}`, input: { marker: name } },
        });
      }
    }
  });

  it('never hands out ipcRenderer or a generic invoke/send', async () => {
    const api = await loadPreload();
    const reachable = JSON.stringify(api, (_k, v: unknown) =>
      typeof v === 'function' ? `fn:${(v as { name: string }).name}` : v,
    );
    expect(reachable).not.toMatch(/invoke|send|ipcRenderer/i);
    expect(Object.values(api)).not.toContain(ipcRenderer);
  });

  it('rejects an event name that is not in the contract, and a listener that is not a function', async () => {
    const api = await loadPreload();
    expect(() => api.on('secret.internal', () => undefined)).toThrow(TypeError);
    expect(() => api.on('__proto__', () => undefined)).toThrow(TypeError);
    expect(() => api.on('sync.progress', 'x' as unknown as () => void)).toThrow(TypeError);
  });

  it('delivers only the subscribed event, with its payload and no IPC event, until unsubscribed', async () => {
    const api = await loadPreload();
    const progress = vi.fn();
    const changed = vi.fn();
    const stop = api.on('sync.progress', progress);
    api.on('stores.changed', changed);
    const payload = { storeId: 'acme', phase: 'tests', done: 1, total: 2 };
    ipcRenderer.deliver(EVENT_CHANNEL, 'sync.progress', payload);
    expect(progress).toHaveBeenCalledExactlyOnceWith(payload);
    expect(changed).not.toHaveBeenCalled();
    stop();
    ipcRenderer.deliver(EVENT_CHANNEL, 'sync.progress', payload);
    expect(progress).toHaveBeenCalledOnce();
  });

  it('accepts every contract event name', async () => {
    const api = await loadPreload();
    for (const name of Object.keys(events))
      expect(typeof api.on(name, () => undefined)).toBe('function');
  });
});

describe('the preload bundle', () => {
  it('holds only the preload, the zod-free name lists and proxy, and requires nothing but electron (a sandboxed preload cannot load zod)', async () => {
    const result = await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        write: false,
        minify: false,
        lib: { entry: 'src/preload/index.ts', formats: ['cjs'], fileName: 'index' },
        rollupOptions: { external: ['electron'] },
      },
    });
    const outputs = Array.isArray(result) ? result : [result];
    const chunks = outputs
      .flatMap((o) => ('output' in o ? o.output : []))
      .filter((c) => c.type === 'chunk');
    expect(chunks).toHaveLength(1);
    const chunk = chunks[0];
    if (!chunk || !('code' in chunk)) throw new Error('no bundle');
    expect(chunk.moduleIds.map((id) => relative(process.cwd(), id)).sort()).toEqual([
      'src/preload/bridge.ts',
      'src/preload/index.ts',
      'src/shared/channels.ts',
      'src/shared/rpc.ts',
    ]);
    const required = [...chunk.code.matchAll(/require\((["'])([^"']+)\1\)/g)].map((m) => m[2]);
    expect(new Set(required)).toEqual(new Set(['electron']));
  });
});
