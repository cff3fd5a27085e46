// The Node.js version check (scripts/check-node.mjs): the comparison as a unit; the files that name
// the version; and the npm entry points as a user runs them under an older real Node (the system Node
// that .ci/run puts Node 22 in front of), reported as skipped, saying why, where none exists.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compareVersions,
  isTooOld,
  minimumOf,
  parseVersion,
  refusal,
  requiredRange,
} from '../../scripts/check-node.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  volta?: { node?: string };
  scripts: Record<string, string>;
};
const RANGE = pkg.engines.node;
const CHECK = 'node scripts/check-node.mjs && ';
/** Every script a user starts from the project: the README's commands and the developer ones. */
const ENTRIES = [
  'start',
  'start:browser',
  'cli',
  'mock-api',
  'test',
  'bench',
  'dev',
  'build',
  'package',
];
const work = mkdtempSync(join(tmpdir(), 'splitbook-node-version-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('parseVersion', () => {
  it.each([
    ['22.12.0', { major: 22, minor: 12, patch: 0, prerelease: [] }],
    ['v22.12', { major: 22, minor: 12, patch: 0, prerelease: [] }],
    ['22', { major: 22, minor: 0, patch: 0, prerelease: [] }],
    [' v22.12.1\n', { major: 22, minor: 12, patch: 1, prerelease: [] }],
    ['22.12.0-rc.1', { major: 22, minor: 12, patch: 0, prerelease: ['rc', '1'] }],
    [
      '23.0.0-nightly20241201abcdef',
      { major: 23, minor: 0, patch: 0, prerelease: ['nightly20241201abcdef'] },
    ],
    ['22.12.0+build.7', { major: 22, minor: 12, patch: 0, prerelease: [] }],
  ])('reads %j', (text, expected) => {
    expect(parseVersion(text)).toEqual(expected);
  });

  it.each(['', 'node', '22.x', 'v', '22.12.0.1', '22..1', '-22'])(
    'reads no version in %j',
    (text) => {
      expect(parseVersion(text)).toBeNull();
    },
  );

  it('reads no version in what is not a string', () => {
    expect(parseVersion(undefined)).toBeNull();
    expect(parseVersion(null)).toBeNull();
    expect(parseVersion(22)).toBeNull();
  });
});

describe('compareVersions', () => {
  const parse = (text: string) => {
    const version = parseVersion(text);
    if (!version) throw new Error(`unreadable ${text}`);
    return version;
  };

  it('orders versions as semver does, pre-releases before their release', () => {
    // The precedence example of the semver specification, then releases around it.
    const ordered = [
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.2.0',
      '1.10.0',
      '2.0.0',
      '10.0.0',
    ];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        const a = ordered[i] ?? '';
        const b = ordered[j] ?? '';
        expect(compareVersions(parse(a), parse(b)), `${a} against ${b}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('ignores build metadata and a leading v', () => {
    expect(compareVersions(parse('v22.12.0+abc'), parse('22.12.0'))).toBe(0);
    expect(compareVersions(parse('22.12'), parse('22.12.0'))).toBe(0);
  });
});

describe('isTooOld', () => {
  it.each([
    ['20.20.2', true],
    ['21.99.99', true],
    ['22', true],
    ['22.11.99', true],
    ['22.12.0-rc.1', true],
    ['22.12.0-nightly20241201abcdef', true],
    ['22.12.0', false],
    ['v22.12', false],
    ['22.12.0+sha.1', false],
    ['22.12.1-rc.1', false],
    ['22.13.0', false],
    ['23.0.0-pre', false],
    ['24.1.0', false],
    ['100.0.0', false],
  ])('against ">=22.12": %s is too old: %s', (running, expected) => {
    expect(isTooOld(running, '>=22.12')).toBe(expected);
  });

  it('lets through a running version it cannot read: it refuses only what it knows is too old', () => {
    expect(isTooOld('unknown', '>=22.12')).toBe(false);
    expect(isTooOld('', '>=22.12')).toBe(false);
  });

  it.each([
    ['>=22', '21.9.9', true],
    ['>=22', '22.0.0', false],
    ['>= 22.12.0', '22.11.0', true],
    ['>=v22.12', '22.12.0', false],
    ['>=22.12.0-rc.2', '22.12.0-rc.1', true],
    ['>=22.12.0-rc.2', '22.12.0-beta', true],
    ['>=22.12.0-rc.2', '22.12.0-rc.10', false],
    ['>=22.12.0-rc.2', '22.12.0', false],
  ])('against %j: %s is too old: %s', (range, running, expected) => {
    expect(isTooOld(running, range)).toBe(expected);
  });

  it.each(['^22.12', '22.x', '>=22 <24', '>=22.12 || >=24', '', '>=twenty'])(
    'refuses to guess a range it does not understand: %j',
    (range) => {
      expect(() => isTooOld('22.12.0', range)).toThrow(/understands an engines.node of the form/);
    },
  );
});

describe('refusal', () => {
  it("says what is needed, what is running and how to get it, from the range's own minimum", () => {
    expect(refusal('20.20.2', '>=22.12')).toBe(
      'Splitbook needs Node.js 22.12 or newer; this is 20.20.2. With nvm: `nvm install` in this folder ' +
        '(it reads .nvmrc); otherwise install Node.js 22 LTS and run `npm ci` again.',
    );
    expect(refusal('22.12.0-rc.1', '>=22.12')).toMatch(/this is 22\.12\.0-rc\.1\./);
    expect(refusal('22.12.0', '>=22.12')).toBeNull();
    expect(refusal(process.versions.node, requiredRange())).toBeNull();
  });
});

describe('one version, one home', () => {
  const minimum = minimumOf(RANGE);
  const pinned = read('.nvmrc').trim();

  it("reads package.json's engines.node, in a form the check understands", () => {
    expect(requiredRange()).toBe(RANGE);
    expect(minimum.version).not.toBeNull();
  });

  it('runs the check first in every entry point a user starts', () => {
    for (const name of ENTRIES) {
      expect(pkg.scripts[name], `npm run ${name}`).toMatch(new RegExp(`^${literally(CHECK)}`));
    }
  });

  it('names the same installable version for nvm, fnm and Volta, one the check accepts', () => {
    expect(read('.nvmrc')).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(read('.node-version')).toBe(read('.nvmrc'));
    expect(pkg.volta?.node).toBe(pinned);
    expect(isTooOld(pinned, RANGE)).toBe(false);
  });

  it('leaves the version to package.json and .nvmrc in scripts/ensure-node.sh (CI)', () => {
    const script = read('scripts/ensure-node.sh');
    expect(script).toContain('scripts/check-node.mjs');
    expect(script).toContain('.nvmrc');
    expect(script).not.toContain(pinned);
    expect(script).not.toMatch(new RegExp(`\\b${literally(minimum.text)}\\b`));
  });

  it('has the README quote the minimum package.json names', () => {
    const readme = read('README.md');
    expect(readme).toContain(`Node.js ${minimum.text} or newer, and npm.`);
    expect(readme).toContain(`Splitbook needs Node.js ${minimum.text} or newer;`);
    expect(readme).toContain(`Required: ${JSON.stringify({ node: RANGE })}`);
  });

  it("stops npm ci on an older Node with npm's own engine error (engine-strict)", () => {
    expect(read('.npmrc')).toMatch(/^engine-strict\s*=\s*true$/m);
  });

  it('has every locked package accept the lowest Node the check lets through and the pinned one', () => {
    // With engine-strict, one package refusing that Node would stop `npm ci` where the check said yes.
    const semver = createRequire(import.meta.url)('semver') as {
      satisfies(version: string, range: string): boolean;
    };
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
    };
    const { major, minor, patch } = minimum.version;
    const lowest = `${major}.${minor}.${patch}`;
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === '' || entry.optional || !range) continue; // the root is package.json's own range
      for (const version of [lowest, pinned]) {
        if (!semver.satisfies(version, range))
          refusing.push(`${path} wants ${range}, not ${version}`);
      }
    }
    expect(refusing).toEqual([]);
  });
});

/** A real Node older than engines.node on this machine, and whether npm runs under it. */
function findOlderNode(): { node: string; version: string; npmRuns: boolean } | null {
  const dirs = [
    ...(process.env['PATH'] ?? '').split(delimiter),
    '/usr/bin',
    '/usr/local/bin',
    '/bin',
  ];
  const nvm = join(homedir(), '.nvm', 'versions', 'node');
  if (existsSync(nvm)) for (const v of readdirSync(nvm)) dirs.push(join(nvm, v, 'bin'));
  const seen = new Set<string>();
  for (const dir of dirs) {
    const candidate = join(dir, 'node');
    if (!dir || !existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    if (seen.has(real)) continue;
    seen.add(real);
    const answer = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const version = answer.stdout?.trim().replace(/^v/, '') ?? '';
    if (answer.status !== 0 || !isTooOld(version, RANGE)) continue;
    const npm = spawnSync('npm', ['--version'], {
      env: userEnv(candidate),
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { node: candidate, version, npmRuns: npm.status === 0 };
  }
  return null;
}

/** A user's shell with `node` (its folder first on PATH): no npm variables from the npm running the tests. */
function userEnv(node: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
  }
  env['PATH'] = [dirname(node), process.env['PATH'] ?? ''].join(delimiter);
  return { ...env, ...extra };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<Run> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

/**
 * A preload (NODE_OPTIONS=--require) that writes to `log` each Node process it starts in
 * (`start <script>`) and each native module that process loads (`dlopen <file>`): every `.node`
 * file, from require or import, goes through process.dlopen. Plain old-Node JavaScript.
 */
function recorder(name: string): { env: Record<string, string>; lines: () => string[] } {
  const log = join(work, `${name}.log`);
  const preload = join(work, 'record-loads.cjs');
  writeFileSync(
    preload,
    [
      "var fs = require('fs');",
      'var log = process.env.SPLITBOOK_LOAD_LOG;',
      "function write(line) { fs.appendFileSync(log, line + '\\n'); }",
      "write('start ' + (process.argv[1] || '-'));",
      'var dlopen = process.dlopen;',
      "process.dlopen = function (module, file) { write('dlopen ' + file); return dlopen.apply(this, arguments); };",
      '',
    ].join('\n'),
  );
  writeFileSync(log, '');
  return {
    env: { NODE_OPTIONS: `--require ${preload}`, SPLITBOOK_LOAD_LOG: log },
    lines: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

const older = findOlderNode();
const noOlderNode = `no Node.js older than engines.node (${RANGE}) on this machine (looked on PATH, in /usr/bin, /usr/local/bin and ~/.nvm); CI machines have one, the system Node that .ci/run puts Node 22 in front of`;

describe(`under an older real Node (${older ? `${older.version} at ${older.node}` : 'none here'})`, () => {
  it('the check alone prints the one message on stderr and exits 1', async (ctx) => {
    if (!older) return ctx.skip(noOlderNode);
    const result = await run(older.node, ['scripts/check-node.mjs'], userEnv(older.node));
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(`${refusal(older.version, RANGE)}\n`);
  });

  it('every entry point exits 1 with the message, before any native module is loaded', async (ctx) => {
    if (!older) return ctx.skip(noOlderNode);
    if (!older.npmRuns) return ctx.skip(`npm itself does not run on Node.js ${older.version}`);
    // Never start an entry point whose check could let this Node through (it would run for real).
    for (const name of ENTRIES)
      expect(pkg.scripts[name]).toMatch(new RegExp(`^${literally(CHECK)}`));
    const direct = spawnSync(older.node, ['scripts/check-node.mjs', '--quiet'], { cwd: ROOT });
    expect(direct.status, 'the check refuses this Node').toBe(1);

    const message = refusal(older.version, RANGE) ?? '';
    const results = await Promise.all(
      ENTRIES.map(async (name) => {
        const record = recorder(name.replace(':', '-'));
        const env = userEnv(older.node, {
          ...record.env,
          SPLITBOOK_DATA_DIR: join(work, `data-${name.replace(':', '-')}`),
        });
        const args = name === 'cli' ? ['stores'] : [];
        // Without -s, as the README says; npm's banner goes to stdout, the message to stderr.
        const result = await run('npm', ['run', name, '--', ...args], env);
        return { name, result, loads: record.lines() };
      }),
    );
    for (const { name, result, loads } of results) {
      const what = `npm run ${name}: ${result.stdout}${result.stderr}\n${loads.join('\n')}`;
      expect(result.code, what).toBe(1);
      expect(result.signal, what).toBeNull();
      expect(result.stderr.split('\n'), what).toContain(message);
      // The recorder saw the check run, and nothing after it: no native module, no build, no tsx.
      expect(
        loads.some((line) => line.endsWith('scripts/check-node.mjs')),
        what,
      ).toBe(true);
      expect(
        loads.filter((line) => line.startsWith('dlopen')),
        what,
      ).toEqual([]);
      expect(
        loads.filter((line) => /tsx|electron|vitest|with-keyring/.test(line)),
        what,
      ).toEqual([]);
    }
  }, 120_000);

  it("npm ci stops with npm's own engine error, installing nothing", async (ctx) => {
    if (!older) return ctx.skip(noOlderNode);
    if (!older.npmRuns) return ctx.skip(`npm itself does not run on Node.js ${older.version}`);
    const project = mkdtempSync(join(work, 'npm-ci-'));
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
      copyFileSync(join(ROOT, file), join(project, file));
    }
    const result = await run(
      'npm',
      ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'],
      userEnv(older.node),
      project,
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('EBADENGINE');
    expect(result.stderr).toContain(`Required: ${JSON.stringify({ node: RANGE })}`);
    expect(existsSync(join(project, 'node_modules'))).toBe(false);
  }, 60_000);
});

describe(`under this Node (${process.versions.node})`, () => {
  it('the CLI runs as before, and the recorder does see its native module load', async () => {
    // The control for the test above: an empty record there means nothing was loaded, not a blind recorder.
    const record = recorder('control');
    const env = userEnv(process.execPath, record.env);
    delete env['DBUS_SESSION_BUS_ADDRESS'];
    delete env['DISPLAY'];
    const dataDir = join(work, 'data-control');
    const result = await run(
      'npm',
      ['run', '-s', 'cli', '--', 'stores', '--data-dir', dataDir],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('No stores yet');
    expect(result.stderr).not.toContain('Splitbook needs Node.js');
    expect(record.lines().some((line) => /^dlopen .*better-sqlite3.*\.node$/.test(line))).toBe(
      true,
    );
  });

  it("npm ci's engine check (engine-strict) accepts this Node and every locked package", async () => {
    const project = mkdtempSync(join(work, 'npm-ci-'));
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
      copyFileSync(join(ROOT, file), join(project, file));
    }
    const result = await run(
      'npm',
      ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'],
      userEnv(process.execPath),
      project,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('EBADENGINE');
  }, 60_000);
});

function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
