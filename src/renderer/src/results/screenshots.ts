// Which sides of a test have a screenshot the window may ask the core for: an http(s) address only.
import type { Test } from '#shared/api/index';
import type { ScreenshotSide } from '#shared/contract/index';

export type ScreenshotEntry = { side: ScreenshotSide; label: string; url: string };

function webUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The control's, then the variant's, each when the store gives an http(s) address for it. */
export function screenshotSides(test: Pick<Test, 'control' | 'variant'>): ScreenshotEntry[] {
  const entries: ScreenshotEntry[] = [];
  const control = webUrl(test.control.screenshotUrl);
  if (control) entries.push({ side: 'control', label: 'Control', url: control });
  const variant = webUrl(test.variant?.screenshotUrl);
  if (variant) entries.push({ side: 'variant', label: 'Variant', url: variant });
  return entries;
}
