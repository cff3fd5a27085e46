// The Changes view and a test's History, read from the review memory: net changes per test since a point in time.
import { METADATA_FIELD_LABELS } from '#shared/domain/tracked-fields';
import type {
  ChangeKind,
  ChangeLine,
  ChangeValue,
  ChangesInput,
  ChangesReport,
  HistoryEntry,
  StoreChanges,
} from '#shared/contract/index';
import { isEnded } from '#shared/domain/lifecycle';
import { changeNets, testSnapshots, testTitles } from '../db/history/changes';
import { firstSnapshotAt, probabilityEnds, storeMark } from '../db/history/review';
import { hasUserData } from '../db/user/attached';
import { listStoreRows } from '../db/cache/stores';
import type { Db } from '../db/types';
import { ownEditsOf } from '../outbox/own-edits';
import { TestState, type Changes } from './state';

/**
 * Changes per store since its last review (or `input.since`), newest first. With `input.limit`, a page:
 * each store's newest lines up to the limit (its changes made elsewhere, and its own edits apart),
 * except the stores in `input.allLinesOf`; the stores' counts count every line.
 */
export function listChanges(db: Db, input: ChangesInput): ChangesReport {
  const stores = listStoreRows(db).filter((s) => input.storeId === null || s.id === input.storeId);
  const summaries: StoreChanges[] = [];
  const lines: ChangeLine[] = [];
  if (!hasUserData(db)) return { stores: [], lines: [] };
  const whole = new Set(input.allLinesOf ?? []);
  for (const store of stores) {
    const { reviewedAt } = storeMark(db, store.id);
    const since = input.since ?? reviewedAt ?? firstSnapshotAt(db, store.id);
    const limit = whole.has(store.id) ? null : (input.limit ?? null);
    const found =
      since === null
        ? { lines: [], count: 0, ownCount: 0 }
        : storeChanges(
            db,
            { storeId: store.id, storeName: store.name },
            { since, reviewedAt },
            input.probabilityThreshold,
            limit,
          );
    summaries.push({
      storeId: store.id,
      storeName: store.name,
      since,
      reviewedAt,
      count: found.count,
      ownCount: found.ownCount,
    });
    lines.push(...found.lines);
  }
  lines.sort(byLine);
  return { stores: summaries, lines };
}

// Plain code-unit comparison: localeCompare is too slow for thousands of lines, and ISO times sort as text.
const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** The view's order: newest first, then by store, test title and field (a store's page is its first lines in it). */
function byLine(a: Line, b: Line): number {
  return (
    cmp(b.at, a.at) ||
    cmp(a.storeName, b.storeName) ||
    cmp(a.testTitle, b.testTitle) ||
    cmp(a.field, b.field)
  );
}

/** A store's newest `limit` lines (null: all), in the order they came otherwise. */
function newest<L extends Line>(lines: L[], limit: number | null): L[] {
  if (limit === null || lines.length <= limit) return lines;
  return [...lines].sort(byLine).slice(0, limit);
}

export type Net = { from: ChangeValue; to: ChangeValue; at: string };
/** Test id -> field -> its net change, tests in the order lines alike in every sort key keep. */
export type NetChanges = Map<string, Map<string, Net>>;

type Window = { since: string; reviewedAt: string | null };

/** A line before its sentence is written (only the lines a page keeps get one). */
type Line = Omit<ChangeLine, 'summary'>;

function storeChanges(
  db: Db,
  store: { storeId: string; storeName: string },
  window: Window,
  threshold: number,
  limit: number | null,
): { lines: ChangeLine[]; count: number; ownCount: number } {
  const { since } = window;
  const ordered = netChanges(db, store.storeId, window, threshold);
  if (ordered.size === 0) return { lines: [], count: 0, ownCount: 0 };
  const titles = testTitles(db, store.storeId, ordered.keys());
  const ownEdit = ownEditsOf(db, store.storeId, since);
  const all: Line[] = [];
  const others: Line[] = [];
  const own: Line[] = [];
  for (const [testId, fields] of ordered) {
    const testTitle = titles.get(testId) ?? testId;
    for (const [field, net] of fields) {
      // A change undone before the review (active → paused → active) is no change.
      if (net.from === net.to && field !== 'added') continue;
      const kind = kindOf(field, net);
      const line: Line = {
        ...store,
        testId,
        testTitle,
        kind,
        field,
        from: net.from,
        to: net.to,
        at: net.at,
        own: kind === 'field' ? ownEdit(testId, field, net.to) : null,
      };
      all.push(line);
      (line.own === null ? others : own).push(line);
    }
  }
  const kept =
    limit === null || (others.length <= limit && own.length <= limit)
      ? all
      : [...newest(others, limit), ...newest(own, limit)];
  return {
    lines: kept.map(withSummary),
    count: others.length,
    ownCount: own.length,
  };
}

/** The line with its sentence, its keys in the contract's order (the CLI's --json prints them so). */
function withSummary(line: Line): ChangeLine {
  const { own, field, kind } = line;
  return {
    storeId: line.storeId,
    storeName: line.storeName,
    testId: line.testId,
    testTitle: line.testTitle,
    kind,
    field,
    from: line.from,
    to: line.to,
    at: line.at,
    summary: own ? ownSummary(own, field, line) : summaryOf(kind, field, line),
    own,
  };
}

/**
 * What changed on a store's tests over the window: each field's net change (kept per field, db/history/
 * review.ts's changeNets) and each test's probability at both ends when it moved more than `threshold`.
 * Tests come in the order of their first change in the window, then those whose probability alone
 * moved, by id.
 */
export function netChanges(
  db: Db,
  storeId: string,
  { since, reviewedAt }: Window,
  threshold: number,
): NetChanges {
  const byTest = new Map<string, { startAt: string; startId: number; fields: Map<string, Net> }>();
  for (const net of changeNets(db, storeId, since, reviewedAt)) {
    let test = byTest.get(net.testId);
    if (!test) {
      test = { startAt: net.startAt, startId: net.startId, fields: new Map() };
      byTest.set(net.testId, test);
    } else if (
      net.startAt < test.startAt ||
      (net.startAt === test.startAt && net.startId < test.startId)
    ) {
      test.startAt = net.startAt;
      test.startId = net.startId;
    }
    // Per-goal tiers order the tests but make no line.
    if (net.field.startsWith('tier:')) continue;
    const change = { from: parseValue(net.fromJson), to: parseValue(net.toJson), at: net.at };
    test.fields.set(net.field, change);
  }
  const ordered: NetChanges = new Map(
    [...byTest]
      .sort(([, a], [, b]) =>
        a.startAt < b.startAt ? -1 : a.startAt > b.startAt ? 1 : a.startId - b.startId,
      )
      .map(([testId, test]) => [testId, test.fields]),
  );
  // The threshold is applied in SQL (the same test on the same doubles): only moved tests come back.
  for (const ends of probabilityEnds(db, storeId, since, threshold)) {
    if (!ends.beforeKnown || ends.before === null || ends.now === null || ends.nowAt === null)
      continue;
    let fields = ordered.get(ends.testId);
    if (!fields) ordered.set(ends.testId, (fields = new Map()));
    fields.set('probabilityToWin', { from: ends.before, to: ends.now, at: ends.nowAt });
  }
  return ordered;
}

/** A value as a snapshot's changes hold it (JSON text, which SQLite gives back as it was written). */
function parseValue(json: string): ChangeValue {
  return JSON.parse(json) as ChangeValue;
}

function kindOf(field: string, { from, to }: Net): ChangeKind {
  switch (field) {
    case 'added':
      return 'added';
    case 'removed':
      return to === true ? 'removed' : 'restored';
    case 'status':
      if (typeof to === 'string' && isEnded(to)) return 'ended';
      if (to === 'paused') return 'paused';
      if (to === 'active' && from !== 'paused' && from !== 'suspended') return 'started';
      return 'status';
    case 'tier':
      return 'tier';
    case 'leader':
      return 'leader';
    case 'probabilityToWin':
      return 'probability';
    default:
      return 'field';
  }
}

export function fieldLabel(field: string): string {
  if (field.startsWith('tier:')) return `Tier of goal ${field.slice(5)}`;
  return METADATA_FIELD_LABELS[field] ?? field;
}

export function showValue(value: ChangeValue, field = ''): string {
  if (value === null || value === '') return 'none';
  if (typeof value === 'number' && field === 'probabilityToWin')
    return `${Math.round(value * 100)}%`;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const text = String(value);
  return text.length > 80
    ? `“${text.slice(0, 77)}…”`
    : field === 'title' || field === 'hypothesis'
      ? `“${text}”`
      : text;
}

function summaryOf(kind: ChangeKind, field: string, net: Net): string {
  const from = showValue(net.from, field);
  const to = showValue(net.to, field);
  switch (kind) {
    case 'added':
      return `New test on the server (${to})`;
    case 'removed':
      return 'Removed from the server';
    case 'restored':
      return 'Back on the server after being removed';
    case 'started':
      return `Started (${from} → ${to})`;
    case 'paused':
      return `Paused (${from} → ${to})`;
    case 'ended':
      return `Ended (${from} → ${to})`;
    case 'status':
      return `Status ${from} → ${to}`;
    case 'tier':
      return net.to === null ? `Tier cleared (was ${from})` : `Became ${to} (was ${from})`;
    case 'leader':
      return `Leading side ${from} → ${to}`;
    case 'probability':
      return `P(win) moved ${from} → ${to}`;
    case 'field':
      return `${fieldLabel(field)} changed on the server: ${from} → ${to}`;
  }
}

function ownSummary(own: 'sent' | 'unsent', field: string, net: Net): string {
  const values = `${showValue(net.from, field)} → ${showValue(net.to, field)}`;
  return own === 'sent'
    ? `${fieldLabel(field)}: your edit, sent from Splitbook: ${values}`
    : `${fieldLabel(field)}: your edit, not yet sent: ${values}`;
}

function parseChanges(json: string): Changes {
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed && typeof parsed === 'object' ? (parsed as Changes) : {};
  } catch {
    return {};
  }
}

/** A test's snapshots, oldest first: the History tab's timeline and its P(win) curve. */
export function testHistory(db: Db, storeId: string, testId: string): HistoryEntry[] {
  if (!hasUserData(db)) return [];
  const entries: HistoryEntry[] = [];
  for (const snapshot of testSnapshots(db, storeId, testId)) {
    let state: TestState;
    try {
      const parsed = TestState.safeParse(JSON.parse(snapshot.state));
      if (!parsed.success) continue;
      state = parsed.data;
    } catch {
      continue;
    }
    entries.push({
      at: snapshot.at,
      baseline: snapshot.baseline === 1,
      status: state.status,
      tier: state.tier,
      leader: state.leader,
      probabilityToWin: state.probabilityToWin,
      lift: state.lift,
      visitorsControl: state.visitorsControl,
      visitorsVariant: state.visitorsVariant,
      removed: state.removed,
      changes: Object.entries(parseChanges(snapshot.changes)).map(([field, [from, to]]) => ({
        field,
        from,
        to,
      })),
    });
  }
  return entries;
}
