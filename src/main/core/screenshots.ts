// A test side's screenshot (the API's `screenshotUrl`), fetched by the core only when asked: when the
// user opens a test's screenshots, or when a client report is written and embeds them. The image comes
// back as a data: URL, so the window's policy stays "images from itself and data:" and a written
// report loads nothing. Only http(s) addresses, only raster images (by their bytes), bounded in size
// and time; never with a store's key.
import type { Test } from '#shared/api/index';
import type { ScreenshotSide } from '#shared/contract/index';
import { appProblem, ProblemError } from '#shared/problem';

export type FetchedScreenshot = {
  /** `data:image/png;base64,…` */
  dataUrl: string;
  bytes: number;
  contentType: ImageType;
};

type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** What the window fetches for one side: a screenshot is seldom over 2 MB; 8 MB is plenty. */
export const VIEW_MAX_BYTES = 8 * 1024 * 1024;
export const SCREENSHOT_TIMEOUT_MS = 10_000;

/** The side's screenshot address, if it is one Splitbook fetches (http or https). */
export function screenshotUrlOf(test: Test, side: ScreenshotSide): string | null {
  const raw =
    side === 'control' ? test.control.screenshotUrl : (test.variant?.screenshotUrl ?? null);
  if (typeof raw !== 'string') return null;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    if (url.username !== '' || url.password !== '') return null;
    return url.href;
  } catch {
    return null;
  }
}

/** The image type its first bytes say (never the server's word alone: an HTML error page is not one). */
function sniff(bytes: Uint8Array): ImageType | null {
  const at = (i: number) => bytes[i] ?? -1;
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'image/png';
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) return 'image/gif';
  const text = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (text(0, 4) === 'RIFF' && text(8, 12) === 'WEBP') return 'image/webp';
  return null;
}

function refusal(title: string, detail: string): ProblemError {
  return new ProblemError(appProblem('api', 502, title, detail));
}

/**
 * Fetches an image, reading at most `maxBytes`. Throws a ProblemError that says why it is not shown:
 * unreachable, refused, not an image, too large.
 */
export async function fetchScreenshot(
  fetchImpl: typeof fetch,
  url: string,
  { maxBytes = VIEW_MAX_BYTES, timeoutMs = SCREENSHOT_TIMEOUT_MS } = {},
): Promise<FetchedScreenshot> {
  const host = new URL(url).host;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      redirect: 'follow',
      credentials: 'omit',
      headers: { accept: 'image/png,image/jpeg,image/webp,image/gif' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    throw new ProblemError(
      appProblem(
        'offline',
        503,
        'The screenshot could not be loaded',
        `${host} did not answer within ${timeoutMs / 1000} s, or cannot be reached from this computer.`,
      ),
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw refusal('The screenshot could not be loaded', `${host} answered ${response.status}.`);
  }
  const megabytes = `${(maxBytes / (1024 * 1024)).toFixed(maxBytes < 1024 * 1024 ? 1 : 0)} MB`;
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw refusal('The screenshot is too large', `It is over ${megabytes}.`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw refusal('The screenshot is too large', `It is over ${megabytes}.`);
      }
      chunks.push(value);
    }
  }
  const bytes = Buffer.concat(chunks, total);
  const contentType = sniff(bytes);
  if (contentType === null) {
    throw refusal(
      'The address is not an image',
      `${host} sent something other than a PNG, JPEG, GIF or WebP image.`,
    );
  }
  return {
    dataUrl: `data:${contentType};base64,${bytes.toString('base64')}`,
    bytes: total,
    contentType,
  };
}
