// `npm run cli -- settings`: prints the settings and changes the results freshness, kept in the data folder's user file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTsx } from '../hosts/support/spawn';

const root = mkdtempSync(join(tmpdir(), 'splitbook-cli-settings-'));
const cli = (args: string[]) =>
  runTsx('src/main/hosts/cli/main.ts', ['--data-dir', join(root, 'data'), ...args], {});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the settings command', () => {
  it('prints the default, sets a value that the next run reads, and refuses an unknown one', async () => {
    const first = await cli(['settings']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^results-freshness {2}1h {2}\(Every hour;/m);

    const set = await cli(['settings', 'results-freshness', 'manual']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('results-freshness  manual  (Only when I ask;');
    expect((await cli(['settings'])).stdout).toContain('results-freshness  manual');

    const bad = await cli(['settings', 'results-freshness', '5m']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'Unknown value for results-freshness: 5m. Use one of 15m, 1h, 6h, 1d, manual.',
    );
    expect((await cli(['settings'])).stdout).toContain('results-freshness  manual');
  });
});
