// Lint rules, including the architecture's import boundaries (see ARCHITECTURE.md "Import rules").
import { builtinModules } from 'node:module';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import svelteParser from 'svelte-eslint-parser';
import globals from 'globals';

// Allow-lists, not deny-lists: a layer may import only what its row names, so a new folder, package
// or Node module is forbidden until someone decides it belongs. `types` are allowed as `import type` only.
const SHARED = ['shared', 'shared/channels', 'shared/contract', 'shared/problem', 'shared/rpc'];
const pkg = (...names) => names.map((name) => `package:${name}`);
// The special functions of the statistics module (pure JS, no Node or DOM): the renderer bundles them too.
const NUMERICS = pkg(
  '@stdlib/math-base-special-betaln',
  '@stdlib/math-base-special-digamma',
  '@stdlib/math-base-special-erfc',
  '@stdlib/math-base-special-trigamma',
  '@stdlib/stats-base-dists-chisquare-cdf',
  '@stdlib/stats-base-dists-normal-quantile',
  '@stdlib/stats-base-dists-t-cdf',
  '@stdlib/stats-base-dists-t-quantile',
);
const LAYERS = {
  shared: {
    may: [...SHARED, ...pkg('zod'), ...NUMERICS],
    why: 'src/shared is pure: it may import only src/shared, zod and the @stdlib special functions',
  },
  'shared/team': {
    may: [...SHARED, 'shared/team', ...pkg('zod', 'yjs')],
    why: "src/shared/team (the shared store's document) is pure: it may import only src/shared, zod and yjs",
  },
  preload: {
    may: ['preload', 'shared/channels', 'shared/rpc', ...pkg('electron')],
    types: ['shared/contract', 'shared/problem'],
    why: 'The sandboxed preload may import only electron, src/shared/channels, src/shared/rpc (both zod-free) and types (import type) from the contract and src/shared/problem',
  },
  renderer: {
    may: ['renderer', ...SHARED, ...pkg('svelte', 'chart.js', 'chartjs-plugin-annotation', 'zod')],
    why: 'The renderer talks only to the Bridge: it may import src/shared and UI packages (svelte, chart.js, zod)',
  },
  simulator: {
    may: ['simulator', ...SHARED, 'node-builtin', ...pkg('zod')],
    why: 'The simulator stands alone: it may import only src/shared, Node built-ins and zod, never the app',
  },
  core: {
    may: [
      'core',
      ...SHARED,
      'simulator',
      'shared/team',
      'node-builtin',
      ...pkg('better-sqlite3', 'keytar', 'zod', 'd3-scale', 'd3-shape'),
      ...pkg('yjs', 'ws', '@hocuspocus/provider'),
    ],
    why: "The core is plain Node and never reaches Electron: it may import src/main/core, src/shared (the team layout included), the simulator (the in-process demo store), Node built-ins, better-sqlite3, keytar, zod, d3-scale / d3-shape (the client report's SVG charts), and yjs, ws and @hocuspocus/provider (the team connection)",
  },
  'hosts/common': {
    may: ['hosts/common', 'core', ...SHARED, 'node-builtin', ...pkg('zod')],
    why: 'src/main/hosts/common serves every host: it may import the core, src/shared, Node built-ins and zod',
  },
  'hosts/browser': {
    may: ['hosts/browser', 'hosts/common', 'core', ...SHARED, 'node-builtin', ...pkg('zod')],
    why: 'The browser host may import hosts/common, the core, src/shared, Node built-ins and zod',
  },
  'hosts/cli': {
    may: ['hosts/cli', 'hosts/common', 'core', ...SHARED, 'node-builtin', ...pkg('zod')],
    why: 'The CLI host may import hosts/common, the core, src/shared, Node built-ins and zod',
  },
  'hosts/electron': {
    may: [
      'hosts/electron',
      'hosts/common',
      'core',
      ...SHARED,
      'node-builtin',
      ...pkg('electron', 'zod'),
    ],
    why: 'The Electron host may import electron, hosts/common, the core, src/shared, Node built-ins and zod',
  },
  'team-server': {
    may: [
      'team-server',
      ...SHARED,
      'shared/team',
      'node-builtin',
      ...pkg(
        'better-sqlite3',
        'zod',
        'yjs',
        'ws',
        '@hocuspocus/server',
        '@hocuspocus/extension-database',
        '@hocuspocus/extension-redis',
      ),
    ],
    why: 'The team server stands alone: it may import only src/shared (its team layout included), Node built-ins, better-sqlite3, zod, yjs, ws and @hocuspocus/server and its database and redis extensions, never the app',
  },
  'main-entry': {
    may: ['hosts/electron'],
    why: "src/main/index.ts is Electron's entry: it may import only src/main/hosts/electron",
  },
};
// Inside a layer: folders that may not reach others of the same layer (deny-lists, by repo-relative
// module path). `except` names single imports still allowed while another change removes them.
const INNER = [
  {
    from: 'src/main/core/db',
    not: [
      'src/main/core/decisions',
      'src/main/core/review',
      'src/main/core/sync',
      'src/shared/domain/decisions',
      'src/shared/domain/statistics',
    ],
    except: [],
    why: 'src/main/core/db only stores: it may not import core/decisions, core/review, core/sync nor the decision or statistics engine (types from src/shared/contract)',
  },
  {
    // The review memory reads the outbox (what waits, what was sent); the outbox never reads the
    // review memory, so the two never form a cycle.
    from: 'src/main/core/outbox',
    not: ['src/main/core/review'],
    except: [],
    why: 'The outbox sits below the review memory: src/main/core/outbox may not import src/main/core/review (review may read the outbox)',
  },
];

// Layers where a computed import()/require() is an error: its target cannot be checked.
const LITERAL_ONLY = new Set([
  'shared',
  'shared/team',
  'preload',
  'renderer',
  'simulator',
  'core',
  'team-server',
]);

const IMMEDIATE_MESSAGE =
  'Begin a transaction with .immediate(): a deferred one that reads first fails at once with "database is locked" beside another process\'s write.';
const IMMEDIATE_TRANSACTIONS = [
  {
    selector:
      "CallExpression[callee.type='CallExpression'][callee.callee.property.name='transaction']",
    message: IMMEDIATE_MESSAGE,
  },
  {
    selector:
      "MemberExpression[object.type='CallExpression'][object.callee.property.name='transaction'][property.name=/^(default|deferred)$/]",
    message: IMMEDIATE_MESSAGE,
  },
];

// SQL lives in src/main/core/db, one module per table, each statement typed once (db/sql.ts): a string
// or template that starts as a statement does is refused anywhere else. The team server keeps its own.
const SQL_START =
  '/^\\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH|DROP|ALTER|ATTACH|DETACH|PRAGMA|BEGIN|ROLLBACK|VACUUM)(\\s|$)/';
const SQL_MESSAGE =
  'SQL belongs in src/main/core/db (a module per table, typed with db/sql.ts read/write): call a function of that module instead.';
const SQL_IN_DB = [
  { selector: `Literal[value=${SQL_START}]`, message: SQL_MESSAGE },
  {
    selector: `TemplateLiteral > TemplateElement:first-child[value.raw=${SQL_START}]`,
    message: SQL_MESSAGE,
  },
];
const SQL_HOMES = ['src/main/core/db/**', 'src/team-server/**'];

const ROOT = import.meta.dirname;
// package.json's "imports": the aliases every layer uses instead of climbing folders (Node, tsx, Vite and
// TypeScript all read them from the importing file's own package.json, whatever the working directory).
const ALIASES = {
  '#shared': 'src/shared',
  '#core': 'src/main/core',
  '#simulator': 'src/simulator',
};
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const HOSTS = ['electron', 'browser', 'cli', 'common'];

/** The layer a repo-relative file (or module path without extension) belongs to, as an importer. */
function importerLayer(file) {
  if (!file.startsWith('src/')) return null; // tests, benches, scripts and configs are not layered
  const target = targetLayer(file.replace(/\.[^/]*$/, ''));
  if (target === 'main') return 'core'; // any other file under src/main is held to the core's rules
  if (target === 'shared/team') return 'shared/team';
  if (target.startsWith('shared/')) return 'shared'; // channels, contract, problem and rpc are shared too
  return target in LAYERS ? target : null;
}

/** The layer a module path (repo-relative, extension and `/index` stripped) belongs to, as a target. */
function targetLayer(modulePath) {
  const under = (dir) => modulePath === dir || modulePath.startsWith(`${dir}/`);
  if (under('src/shared/channels')) return 'shared/channels';
  if (under('src/shared/contract')) return 'shared/contract';
  if (under('src/shared/problem')) return 'shared/problem';
  if (under('src/shared/rpc')) return 'shared/rpc';
  if (under('src/shared/team')) return 'shared/team';
  if (under('src/shared')) return 'shared';
  if (under('src/preload')) return 'preload';
  if (under('src/renderer')) return 'renderer';
  if (under('src/simulator')) return 'simulator';
  if (under('src/team-server')) return 'team-server';
  if (under('src/main/core')) return 'core';
  for (const host of HOSTS) if (under(`src/main/hosts/${host}`)) return `hosts/${host}`;
  if (modulePath === 'src/main' || modulePath === 'src/main/index') return 'main-entry';
  if (under('src/main')) return 'main';
  return 'outside';
}

/** Classifies an import specifier seen in `file` (absolute): its layer and a name for messages. */
function classify(specifier, file) {
  const alias = Object.keys(ALIASES).find((name) => specifier.startsWith(`${name}/`));
  const bare = alias
    ? path.join(ROOT, ALIASES[alias], specifier.slice(alias.length + 1))
    : specifier.replace(/[?#].*$/, '');
  if (bare.startsWith('.') || path.isAbsolute(bare)) {
    const absolute = path.resolve(path.dirname(file), bare);
    const relative = path.relative(ROOT, absolute).split(path.sep).join('/');
    const modulePath = relative
      .replace(/\.(svelte\.ts|svelte\.js|d\.ts|ts|tsx|mts|cts|js|mjs|cjs|svelte|json)$/, '')
      .replace(/\/index$/, '');
    return {
      layer: relative.startsWith('..') ? 'outside' : targetLayer(modulePath),
      name: relative || '.',
      modulePath,
    };
  }
  if (bare.startsWith('node:') || NODE_BUILTINS.has(bare)) {
    return { layer: 'node-builtin', name: `the Node built-in "${bare}"` };
  }
  const name = bare.startsWith('@') ? bare.split('/').slice(0, 2).join('/') : bare.split('/')[0];
  return { layer: `package:${name}`, name: `the package "${name}"` };
}

/** The string a specifier node spells, or null when it is computed. */
function literal(node) {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0)
    return node.quasis[0].value.cooked;
  return null;
}

const layerImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Each layer imports only what its allow-list in eslint.config.js names.' },
    schema: [],
    messages: {
      forbidden: '{{why}} — not {{target}} ("{{specifier}}").',
      typesOnly: '{{why}} — {{target}} ("{{specifier}}") only as `import type`.',
      inner: '{{why}} — not {{target}} ("{{specifier}}").',
      computed:
        '{{why}} — a computed {{kind}} cannot be checked against the layer rules: use a string literal.',
    },
  },
  create(context) {
    const file = context.filename;
    const relativeFile = path.relative(ROOT, file).split(path.sep).join('/');
    const layer = importerLayer(relativeFile);
    if (!layer) return {};
    const { may, types = [], why } = LAYERS[layer];
    const under = (modulePath, dir) => modulePath === dir || modulePath.startsWith(`${dir}/`);
    const inner = INNER.filter((rule) => under(relativeFile, rule.from));

    /** Reports a target an inner rule of the importer's folder denies (type imports included). */
    function checkInner(source, specifier, target) {
      if (target.modulePath === undefined) return;
      for (const rule of inner) {
        if (!rule.not.some((dir) => under(target.modulePath, dir))) continue;
        if (
          rule.except.some(
            (e) =>
              e.file.replace(/\.ts$/, '') === relativeFile.replace(/\.ts$/, '') &&
              e.target === target.modulePath,
          )
        )
          continue;
        context.report({
          node: source,
          messageId: 'inner',
          data: { why: rule.why, target: target.name, specifier },
        });
      }
    }

    /** Reports `source` unless the allow-list admits it; `typeOnly` when nothing reaches run time. */
    function check(source, typeOnly, kind) {
      const specifier = literal(source);
      if (specifier === null) {
        if (LITERAL_ONLY.has(layer))
          context.report({ node: source, messageId: 'computed', data: { why, kind } });
        return;
      }
      const target = classify(specifier, file);
      checkInner(source, specifier, target);
      if (may.includes(target.layer) || (typeOnly && types.includes(target.layer))) return;
      const messageId = types.includes(target.layer) ? 'typesOnly' : 'forbidden';
      context.report({ node: source, messageId, data: { why, target: target.name, specifier } });
    }

    return {
      // With verbatimModuleSyntax only a declaration-level `import type` is erased; `import { type X }` still loads.
      ImportDeclaration: (node) => check(node.source, node.importKind === 'type', 'import'),
      ExportNamedDeclaration: (node) =>
        node.source && check(node.source, node.exportKind === 'type', 'export'),
      ExportAllDeclaration: (node) => check(node.source, node.exportKind === 'type', 'export'),
      ImportExpression: (node) => check(node.source, false, 'import()'),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === 'TSExternalModuleReference' &&
        check(node.moduleReference.expression, node.importKind === 'type', 'import'),
      TSImportType: (node) =>
        check(node.source ?? node.argument?.literal ?? node.argument, true, 'import()'),
      CallExpression(node) {
        if (
          node.callee.type === 'Identifier' &&
          node.callee.name === 'require' &&
          node.arguments.length > 0
        ) {
          check(node.arguments[0], false, 'require()');
        }
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'bench-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      // Three folders up is another layer's code: name it by its alias (#shared/…, #core/…, #simulator/…).
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./){3,}',
              message:
                'Import src/shared, src/main/core or src/simulator by its alias (#shared/…, #core/…, #simulator/…), not three folders up.',
            },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parser: svelteParser,
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Every write transaction on the shared files begins IMMEDIATE, taking the write lock (or waiting for it
    // on busy_timeout) before it reads. A deferred one that reads, then writes, fails at once with
    // "database is locked" when another process committed in between: SQLite calls no busy handler then.
    // A backup's and a restore's own files (the copy, the staged files) are this process's alone.
    files: ['src/main/**'],
    ignores: ['src/main/core/backup/**', ...SQL_HOMES],
    rules: { 'no-restricted-syntax': ['error', ...IMMEDIATE_TRANSACTIONS, ...SQL_IN_DB] },
  },
  {
    files: ['src/main/core/db/**'],
    rules: { 'no-restricted-syntax': ['error', ...IMMEDIATE_TRANSACTIONS] },
  },
  {
    files: ['src/main/core/backup/**'],
    rules: { 'no-restricted-syntax': ['error', ...SQL_IN_DB] },
  },
  {
    files: ['src/**'],
    ignores: ['src/main/**', ...SQL_HOMES],
    rules: { 'no-restricted-syntax': ['error', ...SQL_IN_DB] },
  },
  {
    files: ['src/**'],
    plugins: { splitbook: { rules: { 'layer-imports': layerImports } } },
    rules: { 'splitbook/layer-imports': 'error' },
  },
);
