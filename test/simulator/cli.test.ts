// The mock-api CLI: its first stdout line is the JSON the other processes read, then one log line per request.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TestListResponse } from '#shared/api/index';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsxCli = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));

const FirstLine = z.strictObject({
  baseUrl: z.string().regex(/^http:\/\/127\.0\.0\.1:\d+$/),
  stores: z
    .array(z.strictObject({ name: z.string(), apiKey: z.string(), readOnly: z.boolean() }))
    .min(1),
});

describe('npm run mock-api', () => {
  it('prints {baseUrl, stores} first, serves the API, logs requests without keys, and exits on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [tsxCli, 'src/simulator/serve.ts', '--port', '0', '--seed', '3', '--tests', '12'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const nextLine = async () => {
      const { value, done } = await lines.next();
      if (done === true) throw new Error('mock-api closed its output');
      return String(value);
    };
    try {
      const first = FirstLine.parse(JSON.parse(await nextLine()));
      const store = first.stores[0];
      expect(first.stores.map((each) => each.name)).toContain('Demo store');
      const response = await fetch(`${first.baseUrl}/api/public/v1/tests?perPage=5`, {
        headers: { authorization: `Bearer ${store?.apiKey}` },
      });
      expect(response.status).toBe(200);
      expect(TestListResponse.parse(await response.json()).pagination.totalCount).toBe(12);
      const logLine = await nextLine();
      expect(logLine).toMatch(/^GET \/api\/public\/v1\/tests\?perPage=5 200 \d+ms$/);
      expect(logLine).not.toContain(store?.apiKey ?? 'sk_');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
