// The sides' screenshots a client report shows, fetched once while it is written and embedded as data:
// URLs, so the file itself loads nothing; within limits (each image, all of them, and the time it may
// take), past which a side gets its link and the reason it is not embedded.
import type { Test } from '#shared/api/index';
import type { ScreenshotSide } from '#shared/contract/index';
import { ProblemError } from '#shared/problem';
import { fetchScreenshot, screenshotUrlOf } from '../../screenshots';

/** One image at most this large is embedded (a screenshot squeezed into a card needs no more). */
export const EMBED_MAX_BYTES = 600 * 1024;
/** All the report's images together at most this large: the file stays one to send by email. */
export const EMBED_TOTAL_BYTES = 6 * 1024 * 1024;
/** Each image this long at most, and all of them together REPORT_DEADLINE_MS. */
const EMBED_TIMEOUT_MS = 5_000;
const REPORT_DEADLINE_MS = 20_000;
const AT_ONCE = 4;

export type EmbeddedShot =
  | { side: ScreenshotSide; url: string; dataUrl: string }
  | { side: ScreenshotSide; url: string; dataUrl: null; reason: string };

/** What was found for each address: its image, or why there is only a link. */
export type ReportShots = ReadonlyMap<string, EmbeddedShot>;

export const NO_SHOTS: ReportShots = new Map();

/** The sides of a test with a screenshot address, as shown: control first. */
export function shotsOf(test: Test, shots: ReportShots): EmbeddedShot[] {
  return (['control', 'variant'] as const).flatMap((side) => {
    const url = screenshotUrlOf(test, side);
    if (url === null) return [];
    return [shots.get(`${side} ${url}`) ?? { side, url, dataUrl: null, reason: 'not fetched' }];
  });
}

/** Fetches every side's screenshot of `tests` within the limits; never throws. */
export async function collectShots(
  tests: readonly Test[],
  fetchImpl: typeof fetch,
): Promise<ReportShots> {
  // Real elapsed time: the network's, whatever clock the core runs on.
  const clock = () => Date.now();
  const wanted = tests.flatMap((test) =>
    (['control', 'variant'] as const).flatMap((side) => {
      const url = screenshotUrlOf(test, side);
      return url === null ? [] : [{ side, url }];
    }),
  );
  const out = new Map<string, EmbeddedShot>();
  const deadline = clock() + REPORT_DEADLINE_MS;
  let total = 0;
  let next = 0;
  async function worker(): Promise<void> {
    while (next < wanted.length) {
      const item = wanted[next++];
      if (!item) return;
      const key = `${item.side} ${item.url}`;
      if (out.has(key)) continue;
      const left = deadline - clock();
      if (left <= 0) {
        out.set(key, {
          ...item,
          dataUrl: null,
          reason: 'not fetched: the report had waited long enough for its images',
        });
        continue;
      }
      try {
        const image = await fetchScreenshot(fetchImpl, item.url, {
          maxBytes: EMBED_MAX_BYTES,
          timeoutMs: Math.min(EMBED_TIMEOUT_MS, left),
        });
        if (total + image.bytes > EMBED_TOTAL_BYTES) {
          out.set(key, {
            ...item,
            dataUrl: null,
            reason: 'not embedded: the report holds enough images already',
          });
          continue;
        }
        total += image.bytes;
        out.set(key, { ...item, dataUrl: image.dataUrl });
      } catch (error) {
        const reason =
          error instanceof ProblemError
            ? `not embedded: ${error.problem.title.toLowerCase()}. ${error.problem.detail}`
            : 'not embedded: it could not be loaded';
        out.set(key, { ...item, dataUrl: null, reason });
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, wanted.length) }, () => worker()));
  return out;
}
