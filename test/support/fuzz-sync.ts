// The parser fuzz (issue 23, item 6): valid records from the simulator, mutated (types, nesting, sizes,
// unknown and missing keys, ids, Unicode), served over loopback HTTP and synced into a real SQLite
// cache. Every record must end cached or set aside with a reason; the records beside it, cached.
// Used by test/sync/fuzz.test.ts (fixed seed, a few runs) and bench/fuzz.ts (long runs).
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createApiClient } from '#core/api/index';
import { insertStore } from '#core/db/cache/stores';
import { listingPositionId } from '#core/db/cache/set-aside';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { createSyncEngine } from '#core/sync/run';
import { createSimulator } from '#simulator/index';

/** Caps of the fuzzed client, far below the app's (8 MB, 64 MB) so that "too large" is cheap to reach. */
export const FUZZ_CAPS = { other: 128 * 1024, results: 256 * 1024 };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const Change = fc.oneof(
  fc.record({ kind: fc.constant('retype' as const), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant('remove' as const) }),
  fc.record({
    kind: fc.constant('unknown-key' as const),
    key: fc.string({ unit: 'binary', maxLength: 12 }),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({
    kind: fc.constant('nest' as const),
    depth: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1000, max: 12_000 })),
    as: fc.constantFrom('array' as const, 'object' as const),
  }),
  fc.record({ kind: fc.constant('size' as const), length: fc.integer({ min: 1, max: 40_000 }) }),
  fc.record({ kind: fc.constant('oversize' as const) }),
  // Text that is not JSON in place of a value: the whole answer holding it cannot be parsed.
  fc.record({
    kind: fc.constant('not-json' as const),
    text: fc.constantFrom('NaN', 'undefined', '01', '"\u0001"', '{"a":1,}', "'single'", '[1,,2]'),
  }),
  fc.record({
    kind: fc.constant('unicode' as const),
    text: fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })),
  }),
  fc.record({
    kind: fc.constant('id' as const),
    value: fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer(),
      fc.constant(''),
      fc.string({ unit: 'binary', maxLength: 40 }),
    ),
  }),
);
type Change = typeof Change extends fc.Arbitrary<infer T> ? T : never;

/** What a placeholder in a record stands for: brackets around a value, or text that is not JSON. */
type Splice = { depth: number; as: 'array' | 'object' } | { raw: string };

/** Changes that make the whole answer holding the record unfit: too large, or not JSON. */
const UNFIT = new Set<Change['kind']>(['oversize', 'not-json']);

const Mutation = fc.record({
  /** Which record (modulo the number of tests) and which of its two: the test, or its results. */
  target: fc.nat(),
  on: fc.constantFrom('test' as const, 'results' as const),
  /** Which value in the record (modulo the number of its values; 0 is the record itself). */
  path: fc.nat(),
  change: Change,
});
export type Mutation = typeof Mutation extends fc.Arbitrary<infer T> ? T : never;

export const FuzzCase = fc
  .record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    tests: fc.integer({ min: 3, max: 12 }),
    perPage: fc.constantFrom(4, 5, 10, 100),
    mutations: fc.array(Mutation, { minLength: 1, maxLength: 4 }),
  })
  // A listing page whose every record is too large tells nothing of the listing's counts: its page
  // fails whole (by design, see api/isolate.ts). Two such records always leave a readable neighbour.
  .filter(
    (c) => c.mutations.filter((m) => m.on === 'test' && UNFIT.has(m.change.kind)).length <= 2,
  );
export type FuzzCase = typeof FuzzCase extends fc.Arbitrary<infer T> ? T : never;

/** What became of one case's records, to tally over a long run. */
export interface CaseOutcome {
  outcome: string;
  tests: { cached: number; setAsideById: number; setAsideByPosition: number };
  results: { cached: number; setAside: number; none: number };
}

type Path = (string | number)[];

/** Every value's path in `value`, the value itself first, at most `max` of them. */
function pathsOf(value: unknown, max = 5000): Path[] {
  const out: Path[] = [];
  const walk = (v: unknown, path: Path) => {
    if (out.length >= max) return;
    out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(value, []);
  return out;
}

/**
 * Applies `change` at `path` of `record` (a JSON copy). Deep nesting is left as a placeholder string
 * in the value and spliced into the text by `serialise` (JSON.stringify would overflow on it).
 */
function mutate(
  record: Json,
  path: Path,
  change: Change,
  oversize: number,
  nests: Map<string, Splice>,
): Json {
  const replace = (value: Json): Json => {
    if (path.length === 0) return value;
    const parent = path
      .slice(0, -1)
      .reduce<Json>((v, k) => (v as Record<string, Json>)[k] as Json, record);
    (parent as Record<string | number, Json>)[path[path.length - 1] as string] = value;
    return record;
  };
  const current = path.reduce<Json>((v, k) => (v as Record<string, Json>)[k] as Json, record);
  switch (change.kind) {
    case 'retype':
      return replace(change.value as Json);
    case 'remove': {
      if (path.length === 0) return record;
      const parent = path
        .slice(0, -1)
        .reduce<Json>((v, k) => (v as Record<string, Json>)[k] as Json, record);
      const key = path[path.length - 1];
      if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
      else if (parent !== null && typeof parent === 'object')
        delete (parent as Record<string, Json>)[String(key)];
      return record;
    }
    case 'unknown-key':
      if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
        current[change.key] = change.value as Json;
        return record;
      }
      return replace({ [change.key]: change.value as Json });
    case 'nest': {
      const marker = `\u0000nest${nests.size}\u0000`;
      nests.set(marker, { depth: change.depth, as: change.as });
      return replace([marker, current]);
    }
    case 'size':
      return replace('s'.repeat(change.length));
    case 'oversize':
      return replace('o'.repeat(oversize));
    case 'not-json': {
      const marker = `\u0000raw${nests.size}\u0000`;
      nests.set(marker, { raw: change.text });
      return replace(marker);
    }
    case 'unicode':
      return replace(change.text);
    case 'id':
      if (record !== null && typeof record === 'object' && !Array.isArray(record)) {
        if (change.value === undefined) delete record['id'];
        else record['id'] = change.value;
      }
      return record;
  }
}

/** The record as text, with each nesting placeholder replaced by its depth of brackets around the value. */
function serialise(record: Json, nests: Map<string, Splice>): string {
  let text = JSON.stringify(record);
  for (const [marker, splice] of nests) {
    const quoted = JSON.stringify(marker);
    if ('raw' in splice) {
      text = text.replace(quoted, splice.raw);
      continue;
    }
    const { depth, as } = splice;
    const at = text.indexOf(`[${quoted},`);
    if (at < 0) continue;
    // The pair [marker, value]: find the value's end by bracket depth, outside strings.
    let i = at + quoted.length + 2;
    let level = 0;
    let inString = false;
    const start = i;
    for (; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '[' || c === '{') level++;
      else if (c === ']' || c === '}') {
        if (level === 0) break;
        level--;
      }
    }
    const value = text.slice(start, i);
    const open = as === 'array' ? '['.repeat(depth) : '{"n":'.repeat(depth);
    const close = as === 'array' ? ']'.repeat(depth) : '}'.repeat(depth);
    text = `${text.slice(0, at)}${open}${value}${close}${text.slice(i + 1)}`;
  }
  return text;
}

interface Served {
  tests: string[];
  results: Map<string, string>;
  asked: Set<string>;
}

/** One loopback server for a whole fuzz session; each case swaps what it serves. */
export async function startFuzzServer(): Promise<{
  url: string;
  serve(data: Served): void;
  close(): Promise<void>;
}> {
  let data: Served = { tests: [], results: new Map(), asked: new Set() };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = url.pathname.replace('/api/public/v1', '');
    const send = (status: number, body: string) => {
      res.writeHead(status, {
        'content-type': status === 200 ? 'application/json' : 'application/problem+json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    };
    if (route === '/campaigns/active') return send(200, '{"campaigns":[]}');
    if (route === '/custom-audiences') return send(200, '{"customAudiences":[]}');
    if (route === '/tests') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Number(url.searchParams.get('perPage') ?? '25');
      const slice = data.tests.slice((page - 1) * perPage, page * perPage);
      const pagination = {
        page,
        perPage,
        totalPages: Math.ceil(data.tests.length / perPage),
        totalCount: data.tests.length,
      };
      return send(200, `{"data":[${slice.join(',')}],"pagination":${JSON.stringify(pagination)}}`);
    }
    const results = /^\/tests\/([^/]+)\/results$/.exec(route);
    if (results?.[1]) {
      const id = decodeURIComponent(results[1]);
      data.asked.add(id);
      const body = data.results.get(id);
      if (body !== undefined) return send(200, body);
      return send(404, '{"title":"Not found","status":404}');
    }
    send(404, '{"title":"Not found","status":404}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    serve: (next) => (data = next),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * The record's id as the server sends it: a string id as SQLite will keep it, the text of a "not
 * JSON" token put in its place when that token is a (broken) string, else null.
 */
function idOnTheWire(record: Json, splices: Map<string, Splice>): string | null {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return null;
  const id = record['id'];
  if (typeof id !== 'string') return null;
  const splice = splices.get(id);
  if (splice === undefined) return stored(id);
  if ('raw' in splice && /^".*"$/s.test(splice.raw)) return stored(splice.raw.slice(1, -1));
  return null;
}

/** SQLite keeps text as UTF-8: a lone surrogate comes back as U+FFFD. */
const stored = (s: string) =>
  s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/**
 * One case: the simulator's valid records for `tests` tests, mutated, served, synced twice into a
 * fresh cache. Throws (with what went wrong) when a record is neither cached nor set aside with a
 * reason, when an untouched record is not cached, or when the sync fails or throws.
 */
export async function runFuzzCase(
  server: Awaited<ReturnType<typeof startFuzzServer>>,
  c: FuzzCase,
): Promise<CaseOutcome> {
  const sim = createSimulator({ seed: c.seed, stores: [{ name: 'Fuzz', tests: c.tests }] });
  const originals = sim.snapshot('Fuzz').tests;
  const tests = originals.map((t) => JSON.parse(JSON.stringify(t)) as Json);
  const results = originals.map((t) => {
    const r = sim.results('Fuzz', t.id);
    return r === null ? null : (JSON.parse(JSON.stringify(r)) as Json);
  });
  const nests = originals.map(() => new Map<string, Splice>());
  const resultNests = originals.map(() => new Map<string, Splice>());
  const touched = { tests: new Set<number>(), results: new Set<number>() };
  for (const m of c.mutations) {
    const i = m.target % tests.length;
    if (m.on === 'test') {
      const paths = pathsOf(tests[i]);
      const path = paths[m.path % paths.length] ?? [];
      tests[i] = mutate(
        tests[i] ?? null,
        path,
        m.change,
        FUZZ_CAPS.other + 1,
        nests[i] ?? new Map(),
      );
      touched.tests.add(i);
    } else if (results[i] !== null && results[i] !== undefined) {
      const paths = pathsOf(results[i]);
      const path = paths[m.path % paths.length] ?? [];
      results[i] = mutate(
        results[i] ?? null,
        path,
        m.change,
        FUZZ_CAPS.results + 1,
        resultNests[i] ?? new Map(),
      );
      touched.results.add(i);
    }
  }
  const served: Served = {
    tests: tests.map((t, i) => serialise(t, nests[i] ?? new Map())),
    results: new Map(),
    asked: new Set(),
  };
  originals.forEach((t, i) => {
    const r = results[i];
    if (r !== null && r !== undefined)
      served.results.set(t.id, serialise(r, resultNests[i] ?? new Map()));
  });
  server.serve(served);

  const dir = mkdtempSync(join(tmpdir(), 'splitbook-fuzz-'));
  const db = openDatabase(join(dir, 'cache.db'));
  try {
    insertStore(db, {
      id: 's',
      name: 'Fuzz',
      baseUrl: server.url,
      kind: 'api',
      keyStorage: 'none',
      createdAt: '2026-11-01T00:00:00Z',
    });
    const engine = createSyncEngine({
      db,
      clientFor: async () =>
        createApiClient({
          baseUrl: server.url,
          apiKey: 'sk_test_fuzz_0000000000',
          maxBodyBytes: FUZZ_CAPS,
          maxBackoffMs: 2,
        }),
      clock: Date.now,
      onProgress: () => {},
      onFinished: () => {},
      perPage: c.perPage,
    });
    let outcome: CaseOutcome | null = null;
    for (const run of [1, 2]) {
      const report = await engine.run('s');
      if (report.outcome !== 'ok' && report.outcome !== 'partial') {
        throw new Error(`sync ${run} ended ${report.outcome}: ${JSON.stringify(report.problem)}`);
      }
      const next = check(
        db,
        c,
        tests.map((t, i) => idOnTheWire(t, nests[i] ?? new Map())),
        originals.map((t) => t.id),
        touched,
        served,
        report.outcome,
      );
      if (outcome && JSON.stringify(next) !== JSON.stringify(outcome)) {
        throw new Error(
          `the second sync differs: ${JSON.stringify(outcome)} then ${JSON.stringify(next)}`,
        );
      }
      outcome = next;
    }
    await engine.close();
    if (!outcome) throw new Error('no sync ran');
    return outcome;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function check(
  db: Db,
  c: FuzzCase,
  wireIds: (string | null)[],
  originalIds: string[],
  touched: { tests: Set<number>; results: Set<number> },
  served: Served,
  outcome: string,
): CaseOutcome {
  const cached = new Set(
    db
      .prepare<[], { id: string }>(`SELECT id FROM tests WHERE store_id = 's' AND removed = 0`)
      .all()
      .map((r) => r.id),
  );
  const aside = new Map(
    db
      .prepare<[], { key: string; error: string }>(
        `SELECT resource || ':' || record_id AS key, error FROM set_aside WHERE store_id = 's'`,
      )
      .all()
      .map((r) => [r.key, r.error]),
  );
  const withResults = new Set(
    db
      .prepare<[], { id: string }>(`SELECT test_id AS id FROM results WHERE store_id = 's'`)
      .all()
      .map((r) => r.id),
  );
  const failures: string[] = [];
  const tally: CaseOutcome = {
    outcome,
    tests: { cached: 0, setAsideById: 0, setAsideByPosition: 0 },
    results: { cached: 0, setAside: 0, none: 0 },
  };
  wireIds.forEach((_, i) => {
    const original = originalIds[i] ?? '';
    const position = i + 1;
    const id = wireIds[i] ?? null;
    if (!touched.tests.has(i)) {
      if (!cached.has(original))
        failures.push(`untouched test ${position} (${original}) is not cached`);
      else tally.tests.cached += 1;
    } else if (id !== null && cached.has(id)) {
      tally.tests.cached += 1;
    } else if (id !== null && id !== '' && aside.get(`test:${id}`)) {
      tally.tests.setAsideById += 1;
    } else if (aside.get(`test:${listingPositionId(position)}`)) {
      tally.tests.setAsideByPosition += 1;
    } else {
      failures.push(
        `mutated test ${position} (id ${JSON.stringify(id)}) is neither cached nor set aside`,
      );
    }
    // Results: asked for, they are cached or set aside; never asked, the test's were not due.
    if (!served.asked.has(original)) return;
    if (withResults.has(original)) tally.results.cached += 1;
    else if (aside.get(`results:${original}`)) {
      tally.results.setAside += 1;
      if (!touched.results.has(i) && served.results.has(original))
        failures.push(
          `untouched results of test ${position} were set aside: ${aside.get(`results:${original}`)}`,
        );
    } else if (!served.results.has(original)) tally.results.none += 1;
    else failures.push(`results of test ${position} are neither cached nor set aside`);
  });
  // An untouched test whose results exist must have them cached, whatever befell its neighbours.
  originalIds.forEach((id, i) => {
    if (touched.tests.has(i) || touched.results.has(i) || !served.results.has(id)) return;
    if (!withResults.has(id)) failures.push(`untouched test ${i + 1} has no cached results`);
  });
  if (failures.length > 0) {
    throw new Error(`${failures.join('; ')} (case ${JSON.stringify(summarise(c))})`);
  }
  return tally;
}

/** The case without its long values, for a readable failure. */
function summarise(c: FuzzCase): unknown {
  return {
    ...c,
    mutations: c.mutations.map((m) => ({
      ...m,
      change: JSON.parse(
        JSON.stringify(m.change, (_k, v: unknown) =>
          typeof v === 'string' && v.length > 60 ? `${v.slice(0, 60)}…(${v.length})` : v,
        ),
      ) as unknown,
    })),
  };
}
