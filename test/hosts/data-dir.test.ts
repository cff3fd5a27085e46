// Where the browser host and the CLI keep their data: flag, then env, then the desktop app's own folder.
import { describe, expect, it } from 'vitest';
import { resolveDataDir } from '../../src/main/hosts/common/data-dir';

const HOME = '/home/ada';

describe('resolveDataDir', () => {
  it('prefers --data-dir, then SPLITBOOK_DATA_DIR', () => {
    expect(resolveDataDir('/tmp/flag', { SPLITBOOK_DATA_DIR: '/tmp/env' }, 'linux', HOME)).toBe(
      '/tmp/flag',
    );
    expect(resolveDataDir(undefined, { SPLITBOOK_DATA_DIR: '/tmp/env' }, 'linux', HOME)).toBe(
      '/tmp/env',
    );
  });

  it("uses Electron's userData folder on Linux: XDG_CONFIG_HOME or ~/.config", () => {
    expect(resolveDataDir(undefined, { XDG_CONFIG_HOME: '/xdg' }, 'linux', HOME)).toBe(
      '/xdg/Splitbook',
    );
    expect(resolveDataDir(undefined, {}, 'linux', HOME)).toBe('/home/ada/.config/Splitbook');
  });

  it('uses Application Support on macOS and APPDATA on Windows', () => {
    expect(resolveDataDir(undefined, {}, 'darwin', HOME)).toBe(
      '/home/ada/Library/Application Support/Splitbook',
    );
    expect(resolveDataDir(undefined, { APPDATA: '/appdata' }, 'win32', HOME)).toMatch(
      /^[\\/]appdata[\\/]Splitbook$/,
    );
  });
});
