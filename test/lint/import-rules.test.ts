// The layer allow-lists in eslint.config.js: every forbidden import is reported, the allowed ones are not.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });
const RULE = 'splitbook/layer-imports';

interface Probe {
  /** Where the probe pretends to live; nothing is written there (lintText). */
  file: string;
  code: string;
  /** For a forbidden probe: text the message must contain (proves the target was resolved). */
  mentions?: string;
}

const RENDERER_LIB = 'src/renderer/src/lib/__lint_probe.ts';
const RENDERER = 'src/renderer/src/__lint_probe.ts';
const SHARED = 'src/shared/__lint_probe.ts';
const PRELOAD = 'src/preload/__lint_probe.ts';
const CORE = 'src/main/core/__lint_probe.ts';
const SIMULATOR = 'src/simulator/__lint_probe.ts';
const TEAM = 'src/shared/team/__lint_probe.ts';
const TEAM_SERVER = 'src/team-server/__lint_probe.ts';
/** A module of core/db, held to db's inner rule (it only stores). */
const DB = 'src/main/core/db/cache/__lint_probe.ts';

const forbidden: Record<string, Probe> = {
  'renderer → main (folder index)': {
    file: RENDERER_LIB,
    code: `import '../../../main';`,
    mentions: 'src/main',
  },
  'renderer → simulator (folder index)': {
    file: RENDERER_LIB,
    code: `import { createSimulator } from '../../../simulator';\nvoid createSimulator;`,
    mentions: 'src/simulator',
  },
  'renderer → main/core/db': {
    file: RENDERER_LIB,
    code: `import { openDatabase } from '../../../main/core/db';\nvoid openDatabase;`,
    mentions: 'src/main/core/db',
  },
  'renderer → import() of main/core': {
    file: RENDERER_LIB,
    code: `export const core = await import('../../../main/core');`,
    mentions: 'src/main/core',
  },
  'renderer → worker_threads': {
    file: RENDERER_LIB,
    code: `import 'worker_threads';`,
    mentions: 'built-in "worker_threads"',
  },
  'renderer → node:net': {
    file: RENDERER_LIB,
    code: `import 'node:net';`,
    mentions: 'built-in "node:net"',
  },
  'renderer → zlib': {
    file: RENDERER_LIB,
    code: `import { gzipSync } from 'zlib';\nvoid gzipSync;`,
    mentions: 'built-in "zlib"',
  },
  'renderer → better-sqlite3': {
    file: RENDERER_LIB,
    code: `import 'better-sqlite3';`,
    mentions: 'package "better-sqlite3"',
  },
  'renderer → electron': {
    file: RENDERER_LIB,
    code: `import 'electron';`,
    mentions: 'package "electron"',
  },
  'renderer → preload': {
    file: RENDERER,
    code: `import '../../preload';`,
    mentions: 'src/preload',
  },
  'renderer → require(node:fs)': {
    file: RENDERER_LIB,
    code: `export const fs = require('node:fs');`,
    mentions: 'built-in "node:fs"',
  },
  'renderer → #core alias': {
    file: RENDERER_LIB,
    code: `import { openDatabase } from '#core/db/open';\nvoid openDatabase;`,
    mentions: 'src/main/core/db/open',
  },
  'renderer → #simulator alias': {
    file: RENDERER,
    code: `import '#simulator/index';`,
    mentions: 'src/simulator',
  },
  'shared → #core alias': {
    file: SHARED,
    code: `import '#core/types';`,
    mentions: 'src/main/core/types',
  },
  'preload → value from #shared/problem': {
    file: PRELOAD,
    code: `import { problemSchema } from '#shared/problem';\nvoid problemSchema;`,
    mentions: 'import type',
  },
  'renderer → re-export of main/core': {
    file: RENDERER_LIB,
    code: `export * from '../../../main/core';`,
    mentions: 'src/main/core',
  },
  'renderer → computed import()': {
    file: RENDERER_LIB,
    code: `const name = 'x';\nexport const m = await import(name);`,
    mentions: 'computed import()',
  },
  'renderer .svelte <script> → node:fs': {
    file: 'src/renderer/src/components/__LintProbe.svelte',
    code: `<script lang="ts">\n  import { readFileSync } from 'node:fs';\n  void readFileSync;\n</script>\n`,
    mentions: 'built-in "node:fs"',
  },
  'shared → simulator': { file: SHARED, code: `import '../simulator';`, mentions: 'src/simulator' },
  'shared → main/core': { file: SHARED, code: `import '../main/core';`, mentions: 'src/main/core' },
  'shared → node:fs': { file: SHARED, code: `import 'node:fs';`, mentions: 'built-in "node:fs"' },
  'shared/contract/index.ts → main/core': {
    file: 'src/shared/contract/__lint_probe.ts',
    code: `import '../../main/core';`,
    mentions: 'src/main/core',
  },
  'shared/problem.ts → node:fs': {
    file: 'src/shared/problem.ts', // linted as text: the real file is not touched
    code: `import 'node:fs';`,
    mentions: 'built-in "node:fs"',
  },
  'preload → zod': {
    file: PRELOAD,
    code: `import { z } from 'zod';\nvoid z;`,
    mentions: 'package "zod"',
  },
  'preload → value from shared/problem': {
    file: PRELOAD,
    code: `import { problemSchema } from '../shared/problem';\nvoid problemSchema;`,
    mentions: 'import type',
  },
  'preload → value from shared/contract': {
    file: PRELOAD,
    code: `import { contract } from '../shared/contract';\nvoid contract;`,
    mentions: 'import type',
  },
  'preload → inline type specifiers (still loads the module)': {
    file: PRELOAD,
    code: `import { type Bridge } from '../shared/contract';\nexport type B = Bridge;`,
    mentions: 'import type',
  },
  'preload → another shared module (shared/http-bridge)': {
    file: PRELOAD,
    code: `import { CALL_PATH } from '../shared/http-bridge';\nvoid CALL_PATH;`,
    mentions: 'src/shared/http-bridge',
  },
  'preload → node:path': {
    file: PRELOAD,
    code: `import 'node:path';`,
    mentions: 'built-in "node:path"',
  },
  'preload → main/core': {
    file: PRELOAD,
    code: `import '../main/core';`,
    mentions: 'src/main/core',
  },
  'core → electron (static)': {
    file: CORE,
    code: `import { app } from 'electron';\nvoid app;`,
    mentions: 'package "electron"',
  },
  'core → electron (import type)': {
    file: CORE,
    code: `import type { App } from 'electron';\nexport type A = App;`,
    mentions: 'package "electron"',
  },
  'core → electron (typeof import())': {
    file: CORE,
    code: `export type E = typeof import('electron');`,
    mentions: 'package "electron"',
  },
  'core → electron (await import())': {
    file: CORE,
    code: `export const electron = await import('electron');`,
    mentions: 'package "electron"',
  },
  'core → electron (require())': {
    file: CORE,
    code: `export const electron = require('electron');`,
    mentions: 'package "electron"',
  },
  'core → electron/main (subpath)': {
    file: CORE,
    code: `import 'electron/main';`,
    mentions: 'package "electron"',
  },
  'core → hosts/electron/ipc': {
    file: CORE,
    code: `import '../hosts/electron/ipc';`,
    mentions: 'src/main/hosts/electron/ipc',
  },
  'simulator → main/core': {
    file: SIMULATOR,
    code: `import '../main/core';`,
    mentions: 'src/main/core',
  },
  'simulator → renderer App.svelte': {
    file: SIMULATOR,
    code: `import App from '../renderer/src/App.svelte';\nvoid App;`,
    mentions: 'src/renderer/src/App.svelte',
  },
  'simulator → electron': {
    file: SIMULATOR,
    code: `import 'electron';`,
    mentions: 'package "electron"',
  },
  'hosts/browser → electron': {
    file: 'src/main/hosts/browser/__lint_probe.ts',
    code: `import 'electron';`,
    mentions: 'package "electron"',
  },
  'hosts/cli → hosts/browser': {
    file: 'src/main/hosts/cli/__lint_probe.ts',
    code: `import '../browser/server';`,
    mentions: 'src/main/hosts/browser/server',
  },
  'hosts/common → hosts/electron': {
    file: 'src/main/hosts/common/__lint_probe.ts',
    code: `import '../electron/ipc';`,
    mentions: 'src/main/hosts/electron/ipc',
  },
  'shared/team → node:fs': {
    file: TEAM,
    code: `import 'node:fs';`,
    mentions: 'built-in "node:fs"',
  },
  'shared/team → @hocuspocus/server': {
    file: TEAM,
    code: `import '@hocuspocus/server';`,
    mentions: 'package "@hocuspocus/server"',
  },
  'shared/team → main/core': {
    file: TEAM,
    code: `import '../../main/core/types';`,
    mentions: 'src/main/core/types',
  },
  'shared → shared/team (yjs stays out of the rest of src/shared)': {
    file: SHARED,
    code: `import './team/layout';`,
    mentions: 'src/shared/team/layout',
  },
  'renderer → shared/team (not yet: the desktop side decides)': {
    file: RENDERER_LIB,
    code: `import '#shared/team/texts';`,
    mentions: 'src/shared/team/texts',
  },
  'team-server → main/core': {
    file: TEAM_SERVER,
    code: `import '#core/db/open';`,
    mentions: 'src/main/core/db/open',
  },
  'team-server → simulator': {
    file: TEAM_SERVER,
    code: `import '#simulator/handler';`,
    mentions: 'src/simulator/handler',
  },
  'team-server → keytar': {
    file: TEAM_SERVER,
    code: `import 'keytar';`,
    mentions: 'package "keytar"',
  },
  'team-server → @hocuspocus/extension-sqlite (a second better-sqlite3)': {
    file: TEAM_SERVER,
    code: `import '@hocuspocus/extension-sqlite';`,
    mentions: 'package "@hocuspocus/extension-sqlite"',
  },
  'team-server → ioredis (only through the redis extension)': {
    file: TEAM_SERVER,
    code: `import 'ioredis';`,
    mentions: 'package "ioredis"',
  },
  'team-server → computed import()': {
    file: TEAM_SERVER,
    code: `const name = 'ws';\nexport const ws = await import(name);`,
    mentions: 'computed import()',
  },
  'core/outbox → core/review (the review memory reads the outbox, not the reverse)': {
    file: 'src/main/core/outbox/__lint_probe.ts',
    code: `import '../review/changes';`,
    mentions: 'src/main/core/review/changes',
  },
  'core/outbox/send → core/review by alias, types only': {
    file: 'src/main/core/outbox/send/__lint_probe.ts',
    code: `import type { Changes } from '#core/review/state';\nexport type C = Changes;`,
    mentions: 'src/main/core/review/state',
  },
  'main entry → core (not through the Electron host)': {
    file: 'src/main/index.ts', // linted as text: the real file is not touched
    code: `import './core/create-core';`,
    mentions: 'src/main/core/create-core',
  },
  'core/db → core/decisions (db only stores)': {
    file: DB,
    code: `import { storeBasis } from '#core/decisions/basis';\nvoid storeBasis;`,
    mentions: 'src/main/core/decisions/basis',
  },
  'core/db → core/sync, by a relative path': {
    file: DB,
    code: `import type { SyncEngine } from '../../sync/run';\nexport type E = SyncEngine;`,
    mentions: 'src/main/core/sync/run',
  },
  'core/db → core/review': {
    file: DB,
    code: `import '#core/review/state';`,
    mentions: 'src/main/core/review/state',
  },
  'core/db → the decision engine, even as a type': {
    file: DB,
    code: `import type { Decision } from '#shared/domain/decisions/index';\nexport type D = Decision;`,
    mentions: 'src/shared/domain/decisions',
  },
  'core/db → the statistics engine': {
    file: DB,
    code: `import { testAlerts } from '#shared/domain/statistics/index';\nvoid testAlerts;`,
    mentions: 'src/shared/domain/statistics',
  },
};

const allowed: Record<string, Probe> = {
  'renderer → shared/contract': {
    file: RENDERER,
    code: `import type { Bridge } from '../../shared/contract';\nexport type B = Bridge;`,
  },
  'renderer → chart.js': {
    file: RENDERER_LIB,
    code: `import { Chart } from 'chart.js';\nvoid Chart;`,
  },
  'renderer → own file by import()': {
    file: RENDERER_LIB,
    code: `export const m = await import('./format');`,
  },
  'renderer .svelte <script> → svelte and shared': {
    file: 'src/renderer/src/components/__LintProbe.svelte',
    code: `<script lang="ts">\n  import { onMount } from 'svelte';\n  import { problemSchema } from '#shared/problem';\n  onMount(() => void problemSchema);\n</script>\n`,
  },
  'preload → electron': {
    file: PRELOAD,
    code: `import { contextBridge } from 'electron';\nvoid contextBridge;`,
  },
  'preload → shared/channels': {
    file: PRELOAD,
    code: `import { METHOD_NAMES } from '../shared/channels';\nvoid METHOD_NAMES;`,
  },
  'preload → shared/rpc (the zod-free proxy)': {
    file: PRELOAD,
    code: `import { createProxy } from '../shared/rpc';\nvoid createProxy;`,
  },
  'preload → import type from shared/contract': {
    file: PRELOAD,
    code: `import type { Bridge } from '../shared/contract';\nexport type B = Bridge;`,
  },
  'preload → import type from shared/problem': {
    file: PRELOAD,
    code: `import type { Problem } from '../shared/problem';\nexport type P = Problem;`,
  },
  'core → node:fs': {
    file: CORE,
    code: `import { readFileSync } from 'node:fs';\nvoid readFileSync;`,
  },
  'core → better-sqlite3': {
    file: CORE,
    code: `import Database from 'better-sqlite3';\nvoid Database;`,
  },
  'core → shared/problem': {
    file: CORE,
    code: `import { problemSchema } from '../../shared/problem';\nvoid problemSchema;`,
  },
  'core (deep) → #shared alias': {
    file: 'src/main/core/sync/thread/__lint_probe.ts',
    code: `import { problemSchema } from '#shared/problem';\nvoid problemSchema;`,
  },
  'renderer → import type by #shared alias': {
    file: RENDERER_LIB,
    code: `import type { Bridge } from '#shared/contract/index';\nexport type B = Bridge;`,
  },
  'core → import() of keytar': {
    file: CORE,
    code: `export const keytar = await import('keytar');`,
  },
  'hosts/electron → electron': {
    file: 'src/main/hosts/electron/__lint_probe.ts',
    code: `import { app } from 'electron';\nvoid app;`,
  },
  'hosts/browser → hosts/common and core': {
    file: 'src/main/hosts/browser/__lint_probe.ts',
    code: `import '../common/boot';\nimport '../../core/types';`,
  },
  'simulator → shared/api': { file: SIMULATOR, code: `import '../shared/api';` },
  'simulator → node:http': {
    file: SIMULATOR,
    code: `import { createServer } from 'node:http';\nvoid createServer;`,
  },
  'shared/team → yjs, zod and src/shared': {
    file: TEAM,
    code: `import * as Y from 'yjs';\nimport { z } from 'zod';\nimport { MAX_NOTE_LENGTH } from '../contract/notes';\nimport './layout';\nvoid Y;\nvoid z;\nvoid MAX_NOTE_LENGTH;`,
  },
  'team-server → its packages, Node built-ins and shared/team': {
    file: TEAM_SERVER,
    code: [
      `import Database from 'better-sqlite3';`,
      `import { WebSocketServer } from 'ws';`,
      `import { Hocuspocus } from '@hocuspocus/server';`,
      `import { Database as Persistence } from '@hocuspocus/extension-database';`,
      `import { Redis } from '@hocuspocus/extension-redis';`,
      `import * as Y from 'yjs';`,
      `import { z } from 'zod';`,
      `import { createServer } from 'node:https';`,
      `import { checkTeamRoots } from '#shared/team/check';`,
      `import './options';`,
      `void [Database, WebSocketServer, Hocuspocus, Persistence, Redis, Y, z, createServer, checkTeamRoots];`,
    ].join('\n'),
  },
  'core/review → core/outbox': {
    file: 'src/main/core/review/__lint_probe.ts',
    code: `import { ownEditsOf } from '../outbox/own-edits';\nvoid ownEditsOf;`,
  },
  'tests are not layered': {
    file: 'test/lint/__lint_probe.ts',
    code: `import 'electron';\nimport '../../src/main/core/db';\nimport 'node:fs';`,
  },
  'core/db → the contract and db itself': {
    file: DB,
    code: `import { DecisionCall } from '#shared/contract/decisions';\nimport { statement } from '../statements';\nvoid DecisionCall;\nvoid statement;`,
  },
  'core/decisions → core/db': {
    file: 'src/main/core/decisions/__lint_probe.ts',
    code: `import { storeCall } from '../db/cache/decisions';\nvoid storeCall;`,
  },
};

async function lint(probe: Probe): Promise<{ layer: string[]; fatal: string[] }> {
  const [result] = await eslint.lintText(probe.code, { filePath: path.join(root, probe.file) });
  const messages = result?.messages ?? [];
  return {
    layer: messages.filter((m) => m.ruleId === RULE).map((m) => m.message),
    fatal: messages.filter((m) => m.fatal).map((m) => m.message),
  };
}

describe('deep imports', () => {
  it('reports an import three folders up, naming the aliases', async () => {
    const [result] = await eslint.lintText(
      `import { problemSchema } from '../../../shared/problem';\nvoid problemSchema;`,
      {
        filePath: path.join(root, RENDERER_LIB),
      },
    );
    const messages = (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports');
    expect(messages.map((m) => m.message).join('\n')).toContain('#shared/');
  });
});

describe('layer import rules', () => {
  it.each(Object.entries(forbidden))('reports %s', async (_name, probe) => {
    const { layer, fatal } = await lint(probe);
    expect(fatal).toEqual([]);
    expect(layer.length).toBeGreaterThan(0);
    if (probe.mentions) expect(layer.join('\n')).toContain(probe.mentions);
  });

  it.each(Object.entries(allowed))('allows %s', async (_name, probe) => {
    const { layer, fatal } = await lint(probe);
    expect(fatal).toEqual([]);
    expect(layer).toEqual([]);
  });
});

// SQL lives in src/main/core/db (issue 45 item 4): a statement written anywhere else in src is refused.
describe('SQL stays in core/db', () => {
  const SQL_RULE = 'no-restricted-syntax';
  const sqlMessages = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    const messages = result?.messages ?? [];
    expect(messages.filter((m) => m.fatal)).toEqual([]);
    return messages.filter((m) => m.ruleId === SQL_RULE).map((m) => m.message);
  };
  const QUERY = [
    `export const a = 'SELECT id FROM tests WHERE store_id = ?';`,
    'export const b = `\n  INSERT INTO notes (body) VALUES (${1})`;',
    `export const c = "DELETE FROM notes";`,
    `export const d = 'ROLLBACK';`,
  ].join('\n');

  it.each([
    ['the core outside db', 'src/main/core/reports/__lint_probe.ts'],
    ['the backup module', 'src/main/core/backup/__lint_probe.ts'],
    ['a host', 'src/main/hosts/cli/__lint_probe.ts'],
    ['the renderer', RENDERER_LIB],
    ['shared', SHARED],
  ])('reports SQL written in %s', async (_where, file) => {
    const messages = await sqlMessages(file, QUERY);
    expect(messages).toHaveLength(4);
    expect(messages[0]).toContain('src/main/core/db');
  });

  it.each([
    ['a db module', 'src/main/core/db/cache/__lint_probe.ts'],
    ['the team server', TEAM_SERVER],
    ['a test', 'test/lint/__lint_probe.ts'],
  ])('allows SQL in %s', async (_where, file) => {
    expect(await sqlMessages(file, QUERY)).toEqual([]);
  });

  it('leaves words that only look like SQL alone', async () => {
    const prose = [
      `export const a = 'Create tag';`,
      'export const b = `with only ${2} orders`;',
      `export const c = 'Selected: 3';`,
    ].join('\n');
    expect(await sqlMessages('src/main/core/reports/__lint_probe.ts', prose)).toEqual([]);
  });

  it('still holds a db module to IMMEDIATE transactions', async () => {
    const code = `declare const db: { transaction(f: () => void): () => void };\ndb.transaction(() => undefined)();`;
    expect(await sqlMessages('src/main/core/db/cache/__lint_probe.ts', code)).toHaveLength(1);
  });
});
