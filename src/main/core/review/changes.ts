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
import {
  changedSnapshotsSince,
  firstSnapshotAt,
  probabilityEnds,
  storeMark,
  testSnapshots,
  testTitles,
} from '../db/history/review';
import { hasUserData } from '../db/user/attached';
import { listStoreRows } from '../db/cache/stores';
import type { Db } from '../db/types';
import { ownEditsOf } from './own-edits';
import { DRIFT_FIELDS, TestState, type Changes } from './state';

const IGNORED: ReadonlySet<string> = new Set(DRIFT_FIELDS);

/** Changes per store since its last review (or `input.since`), newest first. */
export function listChanges(db: Db, input: ChangesInput): ChangesReport {
  const stores = listStoreRows(db).filter((s) => input.storeId === null || s.id === input.storeId);
  const summaries: StoreChanges[] = [];
  const lines: ChangeLine[] = [];
  if (!hasUserData(db)) return { stores: [], lines: [] };
  for (const store of stores) {
    const { reviewedAt } = storeMark(db, store.id);
    const since = input.since ?? reviewedAt ?? firstSnapshotAt(db, store.id);
    const storeLines =
      since === null
        ? []
        : storeChanges(
            db,
            { storeId: store.id, storeName: store.name },
            since,
            input.probabilityThreshold,
          );
    const ownCount = storeLines.filter((l) => l.own !== null).length;
    summaries.push({
      storeId: store.id,
      storeName: store.name,
      since,
      reviewedAt,
      count: storeLines.length - ownCount,
      ownCount,
    });
    lines.push(...storeLines);
  }
  // Plain code-unit comparison: localeCompare is too slow for thousands of lines, and ISO times sort as text.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  lines.sort(
    (a, b) =>
      cmp(b.at, a.at) ||
      cmp(a.storeName, b.storeName) ||
      cmp(a.testTitle, b.testTitle) ||
      cmp(a.field, b.field),
  );
  return { stores: summaries, lines };
}

type Net = { from: ChangeValue; to: ChangeValue; at: string };

function storeChanges(
  db: Db,
  store: { storeId: string; storeName: string },
  since: string,
  threshold: number,
): ChangeLine[] {
  const byTest = new Map<string, Map<string, Net>>();
  for (const snapshot of changedSnapshotsSince(db, store.storeId, since)) {
    let fields = byTest.get(snapshot.testId);
    if (!fields) byTest.set(snapshot.testId, (fields = new Map()));
    for (const [field, [from, to]] of Object.entries(parseChanges(snapshot.changes))) {
      if (IGNORED.has(field) || field.startsWith('tier:')) continue;
      const net = fields.get(field);
      if (net) Object.assign(net, { to, at: snapshot.at });
      else fields.set(field, { from, to, at: snapshot.at });
    }
  }
  for (const ends of probabilityEnds(db, store.storeId, since)) {
    if (!ends.beforeKnown || ends.before === null || ends.now === null || ends.nowAt === null)
      continue;
    if (Math.abs(ends.now - ends.before) <= threshold) continue;
    let fields = byTest.get(ends.testId);
    if (!fields) byTest.set(ends.testId, (fields = new Map()));
    fields.set('probabilityToWin', { from: ends.before, to: ends.now, at: ends.nowAt });
  }
  if (byTest.size === 0) return [];
  const titles = testTitles(db, store.storeId);
  const ownEdit = ownEditsOf(db, store.storeId, since);
  const lines: ChangeLine[] = [];
  for (const [testId, fields] of byTest) {
    const testTitle = titles.get(testId) ?? testId;
    for (const [field, net] of fields) {
      // A change undone before the review (active → paused → active) is no change.
      if (net.from === net.to && field !== 'added') continue;
      const kind = kindOf(field, net);
      const own = kind === 'field' ? ownEdit(testId, field, net.to) : null;
      lines.push({
        ...store,
        testId,
        testTitle,
        kind,
        field,
        from: net.from,
        to: net.to,
        at: net.at,
        summary: own ? ownSummary(own, field, net) : summaryOf(kind, field, net),
        own,
      });
    }
  }
  return lines;
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
