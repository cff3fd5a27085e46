// The renderer is served on app:// by a handler that answers only with files inside the built
// renderer folder; the packaged app's fuses are set; the meta CSP equals the header's.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  APP_INDEX_URL,
  appProtocolHandler,
  resolveAppFile,
} from '../../src/main/hosts/electron/app-protocol';
import {
  CONTENT_SECURITY_POLICY,
  META_CONTENT_SECURITY_POLICY,
} from '../../src/main/hosts/common/csp';
import { MOCKED, net } from './support/fake-electron';

vi.mock('electron', async () => import('./support/fake-electron'));

const base = mkdtempSync(join(tmpdir(), 'splitbook-app-protocol-'));
const root = join(base, 'renderer');
mkdirSync(join(root, 'assets'), { recursive: true });
writeFileSync(join(root, 'index.html'), '<!doctype html><title>Splitbook</title>');
writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
writeFileSync(join(base, 'secret.txt'), 'not for the renderer');
symlinkSync(join(base, 'secret.txt'), join(root, 'assets', 'link.txt'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe(`app:// serves the built renderer folder only ${MOCKED}`, () => {
  it('resolves the page and its assets', () => {
    expect(resolveAppFile(root, APP_INDEX_URL)).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://splitbook/')).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://splitbook/assets/app.js?v=1#x')).toBe(
      join(root, 'assets', 'app.js'),
    );
  });

  it.each([
    'app://splitbook/../secret.txt',
    'app://splitbook/%2e%2e/secret.txt',
    'app://splitbook/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    'app://splitbook/..%5csecret.txt',
    'app://splitbook/assets/link.txt',
    'app://splitbook/assets',
    'app://splitbook/missing.js',
    'app://splitbook/index.html%00.js',
    'app://other/index.html',
    'file:///etc/passwd',
    'https://splitbook/index.html',
    'not a url',
  ])('refuses %s', (url) => {
    expect(resolveAppFile(root, url)).toBeNull();
  });

  it('answers with the file, its type and the CSP header; anything else is a 404', async () => {
    const handler = appProtocolHandler(root, (url) => net.fetch(url));
    const page = await handler(new Request(APP_INDEX_URL));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(await page.text()).toContain('<title>Splitbook</title>');
    const js = await handler(new Request('app://splitbook/assets/app.js'));
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await handler(new Request('app://splitbook/%2e%2e/secret.txt'))).status).toBe(404);
    expect((await handler(new Request(APP_INDEX_URL, { method: 'POST', body: 'x' }))).status).toBe(
      404,
    );
  });
});

describe('packaging and policy', () => {
  it("sets electron-builder's fuses: no RunAsNode, NODE_OPTIONS or --inspect; cookie encryption, ASAR integrity and ASAR-only loading on", () => {
    // The electronFuses block of the YAML, read as its indented `key: value` lines.
    const yml = readFileSync(join(import.meta.dirname, '../../electron-builder.yml'), 'utf8');
    const block = /^electronFuses:\n((?:[ ]+\w+: \w+\n?)+)/m.exec(yml)?.[1] ?? '';
    const fuses = Object.fromEntries(
      [...block.matchAll(/^\s+(\w+): (\w+)$/gm)].map(([, key, value]) => [key, value === 'true']),
    );
    const config = { electronFuses: fuses };
    expect(config).toMatchObject({
      electronFuses: {
        runAsNode: false,
        enableNodeOptionsEnvironmentVariable: false,
        enableNodeCliInspectArguments: false,
        enableCookieEncryption: true,
        enableEmbeddedAsarIntegrityValidation: true,
        onlyLoadAppFromAsar: true,
      },
    });
  });

  it("the renderer's meta CSP equals the header's, less frame-ancestors (which a meta policy cannot carry)", () => {
    const html = readFileSync(join(import.meta.dirname, '../../src/renderer/index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html)?.[1];
    expect(meta).toBe(META_CONTENT_SECURITY_POLICY);
    expect(META_CONTENT_SECURITY_POLICY).toContain("base-uri 'none'");
    expect(META_CONTENT_SECURITY_POLICY).toContain("form-action 'none'");
    expect(`${META_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`).toBe(CONTENT_SECURITY_POLICY);
  });
});
