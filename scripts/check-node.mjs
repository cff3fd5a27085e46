// Splitbook's one check of the running Node.js against package.json's `engines.node` (">=X.Y[.Z]").
// Run first by every npm script a user starts (`node scripts/check-node.mjs && …`), before anything
// loads a native module: better-sqlite3 built for Node 22 crashes the process (status 139, no
// message) on an older Node. Too old: it prints one message on stderr and exits 1; `--quiet` only
// sets the exit status (scripts/ensure-node.sh). Imported, it only exports the comparison.
// It must run on the old Node it refuses, so it uses no syntax or API newer than Node 12
// (no `?.`, `??`, top-level await, `node:` imports), and no package.
import { readFileSync, realpathSync } from 'fs';
import { dirname, join, resolve } from 'path';
import { fileURLToPath } from 'url';

const PACKAGE_JSON = join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json');

/**
 * A version string as { major, minor, patch, prerelease }, or null when it names no version.
 * Lenient as version strings are in the wild: "v22.12" and "22" are read with the missing parts 0,
 * "22.12.0-rc.1" keeps its pre-release identifiers, build metadata ("+sha") is ignored.
 */
export function parseVersion(text) {
  if (typeof text !== 'string') return null;
  const match =
    /^\s*[vV=]?\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]*)?\s*$/.exec(
      text,
    );
  if (!match) return null;
  return {
    major: Number(match[1]),
    minor: Number(match[2] || 0),
    patch: Number(match[3] || 0),
    prerelease: match[4] ? match[4].split('.') : [],
  };
}

/** Orders two pre-release identifiers as semver does: numbers numerically and before words. */
function compareIdentifiers(a, b) {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Math.sign(Number(a) - Number(b));
  if (numeric.test(a)) return -1;
  if (numeric.test(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b` (parsed versions). */
export function compareVersions(a, b) {
  const parts = ['major', 'minor', 'patch'];
  for (let i = 0; i < parts.length; i++) {
    const difference = a[parts[i]] - b[parts[i]];
    if (difference !== 0) return Math.sign(difference);
  }
  // A pre-release comes before its release: 22.12.0-rc.1 < 22.12.0.
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return Math.sign(b.prerelease.length - a.prerelease.length);
  }
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const order = compareIdentifiers(a.prerelease[i], b.prerelease[i]);
    if (order !== 0) return order;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/** The lowest version a ">=X.Y[.Z]" range accepts, as written ("22.12") and parsed; throws on any other range. */
export function minimumOf(range) {
  const match = /^\s*>=\s*v?(\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?)\s*$/.exec(String(range));
  if (!match) {
    throw new Error(
      `scripts/check-node.mjs understands an engines.node of the form ">=X.Y.Z", not ${JSON.stringify(range)}`,
    );
  }
  return { text: match[1], version: parseVersion(match[1]) };
}

/**
 * True when `running` is provably older than the minimum of `range`. A running version that
 * cannot be read at all is let through: the check refuses only what it knows is too old.
 */
export function isTooOld(running, range) {
  const version = parseVersion(running);
  return version !== null && compareVersions(version, minimumOf(range).version) < 0;
}

/** package.json's `engines.node`, read next to this script. */
export function requiredRange(packageJsonPath) {
  const pkg = JSON.parse(readFileSync(packageJsonPath || PACKAGE_JSON, 'utf8'));
  const range = pkg.engines && pkg.engines.node;
  if (!range) throw new Error(`${packageJsonPath || PACKAGE_JSON} has no engines.node`);
  return range;
}

/** The message for a Node that is too old, or null when `running` will do. */
export function refusal(running, range) {
  if (!isTooOld(running, range)) return null;
  const minimum = minimumOf(range);
  return (
    `Splitbook needs Node.js ${minimum.text} or newer; this is ${running}. ` +
    'With nvm: `nvm install` in this folder (it reads .nvmrc); ' +
    `otherwise install Node.js ${minimum.version.major} LTS and run \`npm ci\` again.`
  );
}

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(resolve(process.argv[1])) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const quiet = process.argv.indexOf('--quiet') !== -1;
  let message;
  try {
    message = refusal(process.versions.node, requiredRange());
  } catch (error) {
    message = `Splitbook could not check the Node.js version: ${error.message}`;
  }
  if (message !== null) {
    if (!quiet) console.error(message);
    process.exit(1);
  }
}
