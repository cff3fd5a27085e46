// The real Electron app through Playwright's _electron, where an Electron binary exists; reported as skipped elsewhere
// (these machines cannot download it, see ENVIRONMENT.md).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { _electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Bridge } from '#shared/contract/index';

/** The Electron binary the npm package would run, without triggering its download (require('electron') would). */
function electronBinary(): string | null {
  try {
    const packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const pathFile = join(packageDir, 'path.txt');
    if (!existsSync(pathFile)) return null;
    const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
const APP_DIR = resolve(import.meta.dirname, '../..');

describe('Electron smoke test', () => {
  it.skipIf(binary === null)(
    `opens the sandboxed window with window.splitbook, answers app.info and enforces the CSP${binary ? '' : ' (skipped: no Electron binary on this machine)'}`,
    async () => {
      expect(
        existsSync(join(APP_DIR, 'out', 'main', 'index.js')),
        'run `npx electron-vite build` first',
      ).toBe(true);
      const dataDir = mkdtempSync(join(tmpdir(), 'splitbook-electron-smoke-'));
      const app = await _electron.launch({
        executablePath: binary ?? '',
        // Chromium's own sandbox cannot start as root (containers); the renderer's Electron sandbox still applies.
        args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), APP_DIR],
        env: { ...process.env, SPLITBOOK_DATA_DIR: dataDir },
      });
      try {
        const page = await app.firstWindow();
        await page.waitForLoadState('domcontentloaded');

        expect(
          await page.evaluate(() => [
            typeof (globalThis as unknown as { require?: unknown }).require,
            typeof globalThis.process,
          ]),
        ).toEqual(['undefined', 'undefined']);
        const keys = await page.evaluate(() =>
          Object.keys((globalThis as unknown as { splitbook: Bridge }).splitbook).sort(),
        );
        expect(keys).toEqual(['app', 'audiences', 'campaigns', 'on', 'stores', 'sync', 'tests']);
        const info = await page.evaluate(() =>
          (globalThis as unknown as { splitbook: Bridge }).splitbook.app.info({}),
        );
        expect(info).toMatchObject({ ok: true, data: { host: 'electron' } });
        expect(
          await page.evaluate(() => {
            try {
              return String(eval('"eval ran"'));
            } catch {
              return 'blocked';
            }
          }),
        ).toBe('blocked');
      } finally {
        await app.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
