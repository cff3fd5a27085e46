// The lint rule that every transaction of the app's code begins IMMEDIATE (eslint.config.js): a deferred one
// is reported, an immediate one and a nested call are not, and a backup's private files are left alone.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });
const HEADER = `import type Database from 'better-sqlite3';\ndeclare const db: Database.Database;\n`;

async function reported(
  code: string,
  file = 'src/main/core/db/__lint_probe.ts',
): Promise<string[]> {
  const [result] = await eslint.lintText(HEADER + code, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

describe('transactions begin IMMEDIATE', () => {
  it.each([
    ['the default call', 'db.transaction(() => undefined)();'],
    ['an explicit deferred call', 'db.transaction(() => undefined).deferred();'],
    ['a returned default call', 'export const n = () => db.transaction((): number => 1)();'],
  ])('reports %s', async (_name, code) => {
    const messages = await reported(code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('.immediate()');
  });

  it('accepts an immediate transaction', async () => {
    expect(await reported('db.transaction(() => undefined).immediate();')).toEqual([]);
  });

  it("leaves a backup's private copy alone", async () => {
    expect(
      await reported('db.transaction(() => undefined)();', 'src/main/core/backup/__lint_probe.ts'),
    ).toEqual([]);
  });
});
