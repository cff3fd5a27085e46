// `npm run start:browser`: the real core behind the browser host, until Ctrl+C.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openCore } from '../common/boot';
import { resolveDataDir } from '../common/data-dir';
import { startBrowserHost } from './server';
import { createDownloads } from './downloads';

const USAGE = 'usage: start:browser [--data-dir DIR] [--port N] [--static-dir DIR] [--open]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string', default: '0' },
      'static-dir': { type: 'string' },
      // Accepted for scripts that pass it; the address is printed and the user opens it.
      open: { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0..65535. ${USAGE}`);

  const staticDir =
    values['static-dir'] ?? fileURLToPath(new URL('../../../../out/renderer', import.meta.url));
  if (!existsSync(join(staticDir, 'index.html'))) {
    console.warn(
      `No built renderer in ${staticDir}: run \`npx electron-vite build\` (npm run start:browser does).`,
    );
  }
  const downloads = createDownloads();
  const core = await openCore('browser', resolveDataDir(values['data-dir']), {
    saveFile: downloads.saveFile,
    // Every store kept current while the host runs, once a page has painted (the page reports its network).
    backgroundSync: true,
    // The cache's quick_check once the page shows data, not before the first row.
    integrityCheck: 'background',
  });
  const host = await startBrowserHost({ core, staticDir, port, downloads }).catch(
    async (error: unknown) => {
      await core.close();
      throw error;
    },
  );
  console.log(`Splitbook is running at ${host.url}`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    host
      .close()
      .then(() => core.close())
      .then(() => downloads.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('Splitbook could not stop cleanly:', error);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(
    `Splitbook could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
