// The native menu: usual roles, sync shortcuts instead of reload, and commands sent to the renderer.
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { menuTemplate } from '../../src/main/hosts/electron/menu';
import type { MenuCommand } from '#shared/channels';

function flatten(items: readonly MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((item) => [
    item,
    ...(Array.isArray(item.submenu) ? flatten(item.submenu) : []),
  ]);
}

function build(isMac: boolean, isDev = false) {
  const sent: MenuCommand[] = [];
  const items = flatten(menuTemplate({ isMac, isDev, send: (command) => sent.push(command) }));
  const click = (label: string) => {
    const item = items.find((i) => i.label === label);
    if (!item?.click) throw new Error(`no item ${label}`);
    // Electron passes (menuItem, window, event); the commands ignore them.
    (item.click as () => void)();
  };
  return { items, sent, click, top: menuTemplate({ isMac, isDev, send: () => undefined }) };
}

describe('native menu (a plain template: no Electron needed)', () => {
  it.each([false, true])(
    'has File, Edit, View, Window and Help (and the App menu on macOS: %s)',
    (isMac) => {
      const { top } = build(isMac);
      const names = top.map((item) => item.role ?? item.label);
      expect(names).toEqual([
        ...(isMac ? ['appMenu'] : []),
        '&File',
        '&Edit',
        '&View',
        'windowMenu',
        'help',
      ]);
    },
  );

  it('syncs the current store on Ctrl/Cmd+R and all stores on Shift+Ctrl/Cmd+R, by telling the renderer', () => {
    const { items, sent, click } = build(false);
    expect(items.find((i) => i.label === 'Sync Store')?.accelerator).toBe('CmdOrCtrl+R');
    expect(items.find((i) => i.label === 'Sync All Stores')?.accelerator).toBe('Shift+CmdOrCtrl+R');
    click('Sync Store');
    click('Sync All Stores');
    click('Add Store…');
    click('Find');
    expect(sent).toEqual(['sync', 'syncAll', 'addStore', 'find']);
  });

  it.each([false, true])(
    'has no reload or force-reload item whose accelerator would take Ctrl/Cmd+R (dev: %s)',
    (isDev) => {
      const { items } = build(false, isDev);
      expect(items.filter((i) => i.role === 'reload' || i.role === 'forceReload')).toEqual([]);
      const accelerators = items.map((i) => i.accelerator).filter(Boolean);
      expect(accelerators.filter((a) => a === 'CmdOrCtrl+R')).toHaveLength(1);
    },
  );

  it('offers developer tools only in development', () => {
    expect(build(false, false).items.some((i) => i.role === 'toggleDevTools')).toBe(false);
    expect(build(false, true).items.some((i) => i.role === 'toggleDevTools')).toBe(true);
  });

  it('keeps the usual editing roles, so copy and paste work in inputs', () => {
    const roles = build(true).items.map((i) => i.role);
    for (const role of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll'] as const)
      expect(roles).toContain(role);
  });
});
