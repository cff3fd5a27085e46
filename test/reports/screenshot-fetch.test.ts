// A side's screenshot fetched by the core (issue 44, beyond the anchors), from a real server on loopback:
// only a raster image, by its bytes, within a size, never with a key; each refusal says why. And the
// window's tests.screenshot reads the address from the cached test, http(s) only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchScreenshot, screenshotUrlOf } from '#core/screenshots';
import { ProblemError } from '#shared/problem';
import { serveImages, stripedPng, type ImageServer } from '../support/png';

let images: ImageServer;
const seen: Headers[] = [];

beforeAll(async () => {
  images = await serveImages({
    '/small.png': stripedPng(40, 30, [10, 20, 30]),
    '/big.png': stripedPng(400, 400, [0, 0, 0], true),
  });
});
afterAll(() => images.close());

/** A fetch that records the headers each request carried. */
const recording: typeof fetch = (input, init) => {
  seen.push(new Headers(init?.headers));
  return fetch(input, init);
};

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemError) return error.problem;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('fetchScreenshot', () => {
  it('hands back the image as a data: URL of the type its bytes say, with no key sent', async () => {
    const shot = await fetchScreenshot(recording, `${images.url}/small.png`);
    expect(shot.contentType).toBe('image/png');
    expect(shot.dataUrl.startsWith('data:image/png;base64,iVBORw0KGgo')).toBe(true);
    expect(shot.bytes).toBe(stripedPng(40, 30, [10, 20, 30]).length);
    expect(seen.at(-1)?.get('authorization')).toBeNull();
  });

  it('refuses a page that is not an image, whatever it is called, saying so', async () => {
    const problem = await refusal(fetchScreenshot(recording, `${images.url}/missing.png`));
    expect(problem.title).toBe('The screenshot could not be loaded');
    expect(problem.detail).toContain('answered 404');
  });

  it('stops reading past its limit', async () => {
    const problem = await refusal(
      fetchScreenshot(recording, `${images.url}/big.png`, { maxBytes: 100_000 }),
    );
    expect(problem.title).toBe('The screenshot is too large');
  });

  it('says when the address cannot be reached', async () => {
    const problem = await refusal(fetchScreenshot(recording, 'http://127.0.0.1:9/x.png'));
    expect(problem.type).toBe('splitbook:offline');
    expect(problem.detail).toMatch(/cannot be reached/);
  });
});

describe('screenshotUrlOf', () => {
  const test = (url: unknown) =>
    ({ control: { screenshotUrl: url }, variant: { screenshotUrl: url } }) as never;
  it('takes http(s) addresses only, never one carrying credentials', () => {
    expect(screenshotUrlOf(test('https://shots.example/a.png'), 'control')).toBe(
      'https://shots.example/a.png',
    );
    expect(screenshotUrlOf(test('file:///etc/passwd'), 'variant')).toBeNull();
    expect(screenshotUrlOf(test('javascript:alert(1)'), 'control')).toBeNull();
    expect(screenshotUrlOf(test('https://user:pw@shots.example/a.png'), 'control')).toBeNull();
    expect(screenshotUrlOf(test(42), 'control')).toBeNull();
  });
});
