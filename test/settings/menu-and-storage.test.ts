// Settings… in the native menu, and settings that cannot be read falling back to their defaults.
import type { MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { USER_DATA_FILE } from '#core/create-core';
import { menuTemplate } from '../../src/main/hosts/electron/menu';
import type { MenuCommand } from '#shared/channels';
import { DEFAULT_SETTINGS } from '#shared/contract/index';
import { startCore, tempDir } from '../support/core';

function flatten(items: readonly MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((item) => [
    item,
    ...(Array.isArray(item.submenu) ? flatten(item.submenu) : []),
  ]);
}

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => dir.remove()));

describe('settings', () => {
  it('File ▸ Settings… (Ctrl/Cmd+,) tells the renderer to open the Settings dialog', () => {
    const sent: MenuCommand[] = [];
    const items = flatten(
      menuTemplate({ isMac: false, isDev: false, send: (command) => sent.push(command) }),
    );
    const item = items.find((i) => i.label === 'Settings…');
    expect(item?.accelerator).toBe('CmdOrCtrl+,');
    (item?.click as () => void)();
    expect(sent).toEqual(['settings']);
  });

  it('a stored value this version cannot read (a newer choice, damaged JSON) gives the default', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let core = await startCore(dir.path);
    await core.services.settings.set({ resultsFreshness: '1d' });
    await core.close();

    const user = new Database(join(dir.path, USER_DATA_FILE));
    user.prepare(`UPDATE settings SET value = ? WHERE key = 'resultsFreshness'`).run('"2w"');
    user.prepare(`INSERT INTO settings (key, value, updated_at) VALUES ('future', '{', '')`).run();
    user.close();

    core = await startCore(dir.path);
    expect(await core.services.settings.get({})).toEqual(DEFAULT_SETTINGS);
    // Setting it again replaces the unreadable value.
    expect(await core.services.settings.set({ resultsFreshness: '6h' })).toEqual({
      ...DEFAULT_SETTINGS,
      resultsFreshness: '6h',
    });
    await core.close();
  });
});
