// The per-user data folder of the hosts that have no Electron to ask (browser host, CLI).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** package.json's productName: Electron names the userData folder after it. */
const APP_FOLDER = 'Splitbook';

/**
 * `--data-dir` first, then SPLITBOOK_DATA_DIR, then the folder Electron uses as the desktop app's
 * userData (appData + productName), so the CLI and the browser host see the app's own stores:
 * $XDG_CONFIG_HOME/Splitbook or ~/.config/Splitbook on Linux, ~/Library/Application Support/Splitbook
 * on macOS, %APPDATA%\Splitbook on Windows.
 */
export function resolveDataDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (flag) return resolve(flag);
  if (env['SPLITBOOK_DATA_DIR']) return resolve(env['SPLITBOOK_DATA_DIR']);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP_FOLDER);
  if (platform === 'win32')
    return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), APP_FOLDER);
  return join(env['XDG_CONFIG_HOME'] || join(home, '.config'), APP_FOLDER);
}
