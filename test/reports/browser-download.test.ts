// The window's export through the browser host: reports.export over HTTP saves through the host's
// saveFile, then the page downloads the file once from /api/download/<id> behind the token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDownloads } from '../../src/main/hosts/browser/downloads';
import { startBrowserHost, type BrowserHost } from '../../src/main/hosts/browser/server';
import { CALL_PATH, TOKEN_HEADER } from '#shared/http-bridge';
import { parseCsv, reportFixture } from './support';

let fixture: Awaited<ReturnType<typeof reportFixture>>;
let host: BrowserHost;
const downloads = createDownloads();

beforeAll(async () => {
  fixture = await reportFixture({ host: 'browser', saveFile: downloads.saveFile });
  host = await startBrowserHost({ core: fixture.core, staticDir: fixture.dir, downloads });
}, 120_000);
afterAll(async () => {
  await host.close();
  await downloads.close();
  await fixture.remove();
});

const call = (channel: string, input: unknown) =>
  fetch(`${host.origin}${CALL_PATH}/${channel}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [TOKEN_HEADER]: host.token,
      origin: host.origin,
    },
    body: JSON.stringify(input),
  }).then(
    (r) =>
      r.json() as Promise<{
        ok: boolean;
        data: { downloadUrl: string; rows: number; saved: boolean };
      }>,
  );

describe('export from the window through the browser host', () => {
  it('lists the reports, exports one, and the file downloads once behind the token', async () => {
    const list = await call('reports.list', {});
    expect(list.ok).toBe(true);
    const result = await call('reports.export', {
      exportId: 'test-export-1',
      report: 'daily',
      filter: { storeId: 'demo' },
    });
    expect(result).toMatchObject({ ok: true, data: { saved: true } });
    const url = `${host.origin}${result.data.downloadUrl}`;
    expect((await fetch(url)).status).toBe(401);
    const response = await fetch(url, { headers: { [TOKEN_HEADER]: host.token } });
    expect(response.headers.get('content-disposition')).toMatch(
      /attachment; filename="splitbook-daily-/,
    );
    const records = parseCsv(await response.text());
    expect(records).toHaveLength(result.data.rows);
    expect(records[0]).toHaveProperty('date');
    expect((await fetch(url, { headers: { [TOKEN_HEADER]: host.token } })).status).toBe(404);
  });
});
