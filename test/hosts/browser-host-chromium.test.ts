// The browser host as a real Chromium sees it: our page can call and listen; its CSP holds; another site, or a
// DNS-rebound name, cannot call even with the token.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../src/main/hosts/browser/server';
import { launchChromium } from '../support/chromium';
import { createTestCore } from './support/test-core';

const PAGE_SCRIPT = `
const token = new URL(location.href).searchParams.get('token');
window.events = [];
window.callInfo = async () => {
  const r = await fetch('/api/call/app.info', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-splitbook-token': token },
    body: '{}',
  });
  return { status: r.status, body: await r.json() };
};
const source = new EventSource('/api/events?token=' + encodeURIComponent(token));
source.addEventListener('open', () => { window.streamOpen = true; });
source.addEventListener('stores.changed', (e) => window.events.push(JSON.parse(e.data)));
`;

const root = mkdtempSync(join(tmpdir(), 'splitbook-chromium-'));
writeFileSync(
  join(root, 'index.html'),
  '<!doctype html><title>t</title><script>window.inlineRan = true</script><script src="/app.js"></script>',
);
writeFileSync(join(root, 'app.js'), PAGE_SCRIPT);

const test = createTestCore();
let host: BrowserHost;
let browser: Browser;
let attacker: Server;
let attackerPort = 0;

beforeAll(async () => {
  host = await startBrowserHost({ core: test.core, staticDir: root });
  browser = await launchChromium([
    // A name that resolves to 127.0.0.1, as a DNS-rebinding attacker's would.
    '--host-resolver-rules=MAP rebind.test 127.0.0.1',
  ]);
  // Another local site, as if a tab on some other page knew the token.
  attacker = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>evil</title>'),
  );
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  const address = attacker.address();
  attackerPort = typeof address === 'object' && address ? address.port : 0;
});
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('the browser host in Chromium', () => {
  it('lets its own page call the API and receive events, and its CSP blocks inline scripts', async () => {
    const page = await browser.newPage();
    await page.goto(host.url);
    expect(
      await page.evaluate(() => (globalThis as unknown as { inlineRan?: boolean }).inlineRan),
    ).toBeUndefined();

    const answer = await page.evaluate(() =>
      (globalThis as unknown as { callInfo: () => Promise<unknown> }).callInfo(),
    );
    expect(answer).toEqual({
      status: 200,
      body: { ok: true, data: { echo: 'app.info', input: {} } },
    });

    await page.waitForFunction(
      () => (globalThis as unknown as { streamOpen?: boolean }).streamOpen === true,
    );
    test.emit({ name: 'stores.changed', payload: {} });
    await page.waitForFunction(
      () => (globalThis as unknown as { events: unknown[] }).events.length === 1,
    );
    await page.close();
  });

  it('refuses calls from another origin, even with the token (CORS preflight and no-cors form posts alike)', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${attackerPort}/`);
    const before = test.calls.length;
    const outcome = await page.evaluate(
      async ({ target, token }) => {
        const results: string[] = [];
        try {
          await fetch(`${target}/api/call/app.info`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-splitbook-token': token },
            body: '{}',
          });
          results.push('preflighted call answered');
        } catch {
          results.push('preflighted call blocked');
        }
        await fetch(`${target}/api/call/app.info`, {
          method: 'POST',
          mode: 'no-cors',
          body: '{}',
        }).catch(() => undefined);
        return results;
      },
      { target: host.origin, token: host.token },
    );
    expect(outcome).toEqual(['preflighted call blocked']);
    expect(test.calls.length).toBe(before);
    await page.close();
  });

  it('does not serve even the page to a DNS-rebound name', async () => {
    const page = await browser.newPage();
    const port = new URL(host.origin).port;
    const response = await page.goto(`http://rebind.test:${port}/?token=${host.token}`);
    expect(response?.status()).toBe(421);
    await page.close();
  });
});
