// `npm run start:browser` end to end: the real core behind the browser host, in its own process, stopped by a signal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { CALL_PATH, TOKEN_HEADER, TOKEN_PARAM } from '#shared/http-bridge';
import { startTsx, waitForLine } from './support/spawn';

const ENTRY = 'src/main/hosts/browser/main.ts';
const root = mkdtempSync(join(tmpdir(), 'splitbook-start-browser-'));
writeFileSync(join(root, 'index.html'), '<!doctype html><title>Splitbook</title>');
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function post(url: URL, channel: string, input: unknown): Promise<unknown> {
  const token = url.searchParams.get(TOKEN_PARAM) ?? '';
  const response = await fetch(new URL(`${CALL_PATH}/${channel}`, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
    body: JSON.stringify(input),
  });
  return response.json();
}

describe('start:browser', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'prints its URL, serves the page and the real core, and stops cleanly on %s',
    async (signal) => {
      const dataDir = join(root, `data-${signal}`);
      const child = startTsx(ENTRY, ['--data-dir', dataDir, '--static-dir', root, '--open']);
      const [, printed] = await waitForLine(child, /Splitbook is running at (\S+)\n/);
      const url = new URL(printed ?? '');
      expect(url.hostname).toBe('127.0.0.1');

      expect((await fetch(new URL('/', url))).status).toBe(200);
      expect(await post(url, 'app.info', {})).toMatchObject({
        ok: true,
        data: { host: 'browser' },
      });
      expect(await post(url, 'stores.openDemo', {})).toMatchObject({
        ok: true,
        data: { kind: 'demo' },
      });
      expect(await post(url, 'stores.list', {})).toMatchObject({
        ok: true,
        data: [{ kind: 'demo' }],
      });

      child.kill(signal);
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      await expect(fetch(new URL('/', url))).rejects.toThrow();
    },
  );

  it('takes its data folder from SPLITBOOK_DATA_DIR when --data-dir is not given', async () => {
    const dataDir = join(root, 'from-env');
    const child = startTsx(ENTRY, ['--static-dir', root], {
      ...process.env,
      SPLITBOOK_DATA_DIR: dataDir,
    });
    const [, printed] = await waitForLine(child, /Splitbook is running at (\S+)\n/);
    const url = new URL(printed ?? '');
    await post(url, 'stores.openDemo', {});
    child.kill('SIGTERM');
    await once(child, 'exit');

    const again = startTsx(ENTRY, ['--data-dir', dataDir, '--static-dir', root]);
    const [, second] = await waitForLine(again, /Splitbook is running at (\S+)\n/);
    expect(await post(new URL(second ?? ''), 'stores.list', {})).toMatchObject({
      ok: true,
      data: [{ kind: 'demo' }],
    });
    again.kill('SIGTERM');
    await once(again, 'exit');
  });

  it('refuses a bad --port with a message and a non-zero exit', async () => {
    const child = startTsx(ENTRY, ['--port', 'http', '--data-dir', join(root, 'bad')]);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('--port must be 0..65535');
  });
});
