// Debian's Chromium, headless, as these machines can run it: no sandbox as root, no GPU, no network chatter.
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

/** Launches Chromium with the flags every test and benchmark needs, plus `extraArgs`. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...ARGS, ...extraArgs] });
}

/** The window sizes every view is looked at in: the smallest the app allows, and a common laptop. */
export const SCREEN_SIZES = [
  { width: 1440, height: 900 },
  { width: 900, height: 560 },
] as const;

/**
 * Screenshots of the page at each of SCREEN_SIZES in the light and the dark theme, named
 * `<name>-<width>-<theme>.png` in `folder`; `prepare` runs before each shot (scroll, reopen a dialog).
 * Leaves the page at 1440×900, light.
 */
export async function screenshotsAtEverySize(
  page: Page,
  folder: string,
  name: string,
  prepare: () => Promise<void> = async () => {},
): Promise<void> {
  for (const size of SCREEN_SIZES) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await prepare();
      await page.screenshot({ path: join(folder, `${name}-${size.width}-${scheme}.png`) });
    }
  }
  await page.setViewportSize(SCREEN_SIZES[0]);
  await page.emulateMedia({ colorScheme: 'light' });
}
