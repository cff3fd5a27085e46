// File ▸ Back up your data…: the menu item asks where with the native save dialog, the core writes the
// backup (a real core on a real SQLite folder), and the user is told what it holds or why it failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemorySecretStore } from '#core/secrets/index';
import type { Core } from '#core/types';
import { startCore } from '../support/core';

const MOCKED = '(Electron mocked: the runtime cannot run here)';

const state = vi.hoisted(() => ({
  documents: '',
  answer: { canceled: false, filePath: '' as string | undefined },
  asked: [] as unknown[],
  shown: [] as { message: string; detail: string }[],
  errors: [] as [string, string][],
}));

vi.mock('electron', () => {
  const app = { getPath: (name: string) => (name === 'documents' ? state.documents : '') };
  const dialog = {
    showSaveDialog: vi.fn(async (...args: unknown[]) => {
      state.asked.push(args.at(-1));
      return state.answer;
    }),
    showMessageBox: vi.fn(async (...args: unknown[]) => {
      state.shown.push(args.at(-1) as { message: string; detail: string });
      return { response: 0 };
    }),
    showErrorBox: vi.fn(
      (title: string, content: string) => void state.errors.push([title, content]),
    ),
  };
  return { app, dialog, default: { app, dialog } };
});

const { backUpFromMenu } = await import('../../src/main/hosts/electron/backup');
const { menuTemplate } = await import('../../src/main/hosts/electron/menu');

function flatten(items: readonly MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((item) => [
    item,
    ...(Array.isArray(item.submenu) ? flatten(item.submenu) : []),
  ]);
}

let dir = '';
let core: Core;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'splitbook-menu-backup-'));
  state.documents = dir;
  state.asked = [];
  state.shown = [];
  state.errors = [];
  core = await startCore(join(dir, 'data'), {
    secrets: createMemorySecretStore(),
    demo: { tests: 5 },
  });
  const demo = await core.services.stores.openDemo({});
  await core.services.notes.addAnnotation({ storeId: demo.id, day: '2026-02-01', label: 'Launch' });
});
afterEach(async () => {
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

describe(`File ▸ Back up your data… ${MOCKED}`, () => {
  it('is in the File menu and, clicked, asks where, writes the backup and says what it holds', async () => {
    state.answer = { canceled: false, filePath: join(dir, 'mine.splitbook-backup') };
    let done: Promise<string | null> = Promise.resolve(null);
    const items = flatten(
      menuTemplate({
        isMac: false,
        isDev: false,
        send: () => undefined,
        backup: () => void (done = backUpFromMenu(core, null, new Date('2026-03-04T10:00:00Z'))),
      }),
    );
    const file = items.find((i) => i.label === '&File');
    const labels = (Array.isArray(file?.submenu) ? file.submenu : []).map((i) => i.label);
    expect(labels).toContain('Back up your data…');
    const item = items.find((i) => i.label === 'Back up your data…');
    (item?.click as () => void)();
    expect(await done).toBe(join(dir, 'mine.splitbook-backup'));

    expect(state.asked[0]).toMatchObject({
      defaultPath: join(dir, 'Splitbook backup 2026-03-04.splitbook-backup'),
      filters: [{ name: 'Splitbook backup', extensions: ['splitbook-backup'] }],
    });
    const info = await core.data.inspect(join(dir, 'mine.splitbook-backup'));
    expect(info.stores.map((s) => s.name)).toEqual(['Demo store']);
    expect(info.counts.annotations).toBe(1);
    expect(state.shown[0]?.message).toBe('Your data is backed up.');
    expect(state.shown[0]?.detail).toContain('1 store (Demo store)');
    expect(state.shown[0]?.detail).toContain('1 annotation');
    expect(state.errors).toEqual([]);
  });

  it('writes nothing when the dialog is cancelled', async () => {
    state.answer = { canceled: true, filePath: undefined };
    expect(await backUpFromMenu(core, null)).toBeNull();
    expect(state.shown).toEqual([]);
    expect(state.errors).toEqual([]);
  });

  it('says why when the backup cannot be written', async () => {
    state.answer = {
      canceled: false,
      filePath: join(dir, 'no-such-folder', 'mine.splitbook-backup'),
    };
    expect(await backUpFromMenu(core, null)).toBeNull();
    expect(state.errors).toEqual([
      [
        'The backup was not written',
        `No such folder: ${join(dir, 'no-such-folder')} does not exist.`,
      ],
    ]);
  });

  it('has no such item when the host offers none', () => {
    const items = flatten(menuTemplate({ isMac: true, isDev: false, send: () => undefined }));
    expect(items.some((i) => i.label === 'Back up your data…')).toBe(false);
  });
});
