// The native menu: the usual roles, plus app commands that the renderer carries out (it knows the current store).
import type { MenuItemConstructorOptions } from 'electron';
import type { MenuCommand } from '#shared/channels';

/**
 * App, File, Edit, View, Window and Help. Ctrl/Cmd+R syncs the current store and Shift+Ctrl/Cmd+R
 * syncs all stores, so View has no reload or force-reload item (their accelerators would win).
 */
export function menuTemplate(options: {
  isMac: boolean;
  isDev: boolean;
  send: (command: MenuCommand) => void;
  /** File ▸ Back up your data…: the host carries it out itself (its save dialog, the core's backup). */
  backup?: () => void;
}): MenuItemConstructorOptions[] {
  const { isMac, isDev, send, backup } = options;
  const command = (
    label: string,
    accelerator: string,
    name: MenuCommand,
  ): MenuItemConstructorOptions => ({
    label,
    accelerator,
    click: () => send(name),
  });
  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      command('Add Store…', 'CmdOrCtrl+N', 'addStore'),
      { type: 'separator' },
      command('Sync Store', 'CmdOrCtrl+R', 'sync'),
      command('Sync All Stores', 'Shift+CmdOrCtrl+R', 'syncAll'),
      { type: 'separator' },
      command('Settings…', 'CmdOrCtrl+,', 'settings'),
      { type: 'separator' },
      ...(backup
        ? [{ label: 'Back up your data…', click: () => backup() }, { type: 'separator' } as const]
        : []),
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  const edit: MenuItemConstructorOptions = {
    label: '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
      { type: 'separator' },
      command('Find', 'CmdOrCtrl+F', 'find'),
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
      ...(isDev ? [{ type: 'separator' } as const, { role: 'toggleDevTools' } as const] : []),
    ],
  };
  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: isMac ? [] : [{ role: 'about' }],
  };
  return [
    ...(isMac ? [{ role: 'appMenu' } as const] : []),
    file,
    edit,
    view,
    { role: 'windowMenu' },
    help,
  ];
}
