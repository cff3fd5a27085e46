// Start-up benchmark: how long a core takes from open to the first page of the test list, with the
// cache's quick_check on open (the CLI) and in the background once the window shows data (the app),
// on a cache of about 45 MB; and how long the background check itself takes, on its own thread.
import { join } from 'node:path';
import { createCore } from '#core/index';
import { TestListInput } from '#shared/contract/index';
import { openDatabase } from '#core/db/open';
import { checkIntegrityInBackground } from '#core/db/integrity';
import { createMemorySecretStore } from '#core/secrets/index';
import { fillBulkStore } from '../test/reports/bulk';
import { fmt, printFigures, withTempDir } from './support';

const NOW = Date.parse('2026-11-01T12:00:00Z');

export async function benchStartup(): Promise<void> {
  await withTempDir(async (dir) => {
    const db = openDatabase(join(dir, 'splitbook.db'), {
      userDataFile: join(dir, 'splitbook-user.db'),
    });
    fillBulkStore(db, { storeId: 'bulk', name: 'Bulk', tests: 1700, days: 120, now: NOW });
    db.close();
    const { statSync } = await import('node:fs');
    const size = statSync(join(dir, 'splitbook.db')).size;
    const firstRows = async (integrityCheck: 'on-open' | 'background') => {
      const started = performance.now();
      const core = await createCore({
        dataDir: dir,
        secrets: createMemorySecretStore(),
        host: 'cli',
        version: 'bench',
        integrityCheck,
      });
      await core.services.tests.list(TestListInput.parse({ limit: 50 }));
      const ms = performance.now() - started;
      await core.close();
      return ms;
    };
    const onOpen: number[] = [];
    const background: number[] = [];
    for (let run = 0; run < 3; run++) {
      onOpen.push(await firstRows('on-open'));
      background.push(await firstRows('background'));
    }
    const checkStarted = performance.now();
    // The check's thread does not keep a process alive (the app's window does): the bench holds it.
    const hold = setInterval(() => undefined, 1000);
    const result = await checkIntegrityInBackground(join(dir, 'splitbook.db')).finally(() =>
      clearInterval(hold),
    );
    const check = performance.now() - checkStarted;
    const min = (xs: number[]) => Math.min(...xs);
    printFigures(
      `Start-up: open to the first 50 rows of the list, a ${fmt(size / 1024 / 1024, 0)} MB cache (warm; min of 3)`,
      [
        { name: 'quick_check on open (CLI)', value: `${fmt(min(onOpen), 0)} ms` },
        { name: 'quick_check in the background (app)', value: `${fmt(min(background), 0)} ms` },
        {
          name: 'saved on the start path',
          value: `${fmt(min(onOpen) - min(background), 0)} ms`,
          goal: 'the whole check',
        },
        {
          name: 'the background check itself',
          value: `${fmt(check, 0)} ms on its own thread (${result.ok ? 'ok' : 'damage'})`,
        },
      ],
    );
  });
}
