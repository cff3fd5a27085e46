// Runs a command inside a private D-Bus session with a fresh, unlocked GNOME Keyring, so tests use a
// real OS keychain without touching the user's own. Without dbus-run-session or gnome-keyring it
// runs the command as it is and says so (keychain tests then report themselves skipped).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const command = process.argv.slice(2);
if (command.length === 0) {
  console.error('usage: node scripts/with-keyring.mjs <command> [args...]');
  process.exit(2);
}

const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
const root = mkdtempSync(join(tmpdir(), 'splitbook-keyring-'));
const env = { ...process.env };
let argv = command;

if (has('dbus-run-session') && has('gnome-keyring-daemon')) {
  for (const dir of ['runtime', 'data', 'config', 'cache']) mkdirSync(join(root, dir));
  chmodSync(join(root, 'runtime'), 0o700);
  Object.assign(env, {
    XDG_RUNTIME_DIR: join(root, 'runtime'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_CACHE_HOME: join(root, 'cache'),
    SPLITBOOK_TEST_KEYRING: '1',
  });
  const script = 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"';
  argv = ['dbus-run-session', '--', 'sh', '-c', script, 'sh', ...command];
} else {
  console.warn('with-keyring: no dbus-run-session or gnome-keyring-daemon here; keychain tests will be skipped.');
}

const [bin, ...args] = argv;
const child = spawn(bin, args, { stdio: 'inherit', env });
const forward = (signal) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
child.on('exit', (code, signal) => {
  rmSync(root, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
