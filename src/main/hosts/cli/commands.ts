// What each CLI command does, through core.services only: list, add, sync and export stores' tests.
import {
  AddStoreInput,
  type SyncProgress,
  type SyncReport,
  type StoreSummary,
} from '#shared/contract/index';
import type { Writable } from 'node:stream';
import type { Core, ExportRequest } from '#core/index';
import { printLinkHints } from './team-commands';

const PROGRESS_INTERVAL_MS = 1000;

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Standard output as a stream, for a CSV piped without --out. */
  stdout?: Writable;
}

export async function listStores(core: Core, io: Io, json = false): Promise<number> {
  const stores = await core.services.stores.list({});
  if (json) {
    // StoreSummary[] as the window gets them (no key is ever part of one).
    io.out(JSON.stringify(stores, null, 2));
    return 0;
  }
  if (stores.length === 0) {
    io.out('No stores yet. Add one with: add-store --name NAME --base-url URL');
    return 0;
  }
  const rows = stores.map((s) => [
    s.id,
    s.name,
    s.kind,
    syncState(s),
    s.sync.lastSyncedAt ?? 'never',
    nextBackgroundSync(s),
    backOff(s),
    String(s.counts.tests),
  ]);
  const headers = ['ID', 'NAME', 'KIND', 'SYNC', 'LAST SYNCED', 'NEXT SYNC', 'BACK-OFF', 'TESTS'];
  for (const line of table(headers, rows)) io.out(line);
  return 0;
}

/** When the app next syncs the store by itself (the CLI never does): a time, off, or stopped and why. */
function nextBackgroundSync(store: StoreSummary): string {
  const background = store.background;
  if (!background) return '-';
  if (background.stopped) return `stopped: ${background.stopped.reason} (set the key again)`;
  return background.nextAt ?? 'off';
}

/** Failures in a row and the earliest next try, or none. */
function backOff(store: StoreSummary): string {
  const background = store.background;
  if (!background || background.failures === 0) return 'none';
  const failures = `${background.failures} failure${background.failures === 1 ? '' : 's'}`;
  return background.backoffUntil ? `${failures}, until ${background.backoffUntil}` : failures;
}

export async function addStore(
  core: Core,
  io: Io,
  input: { name: string; baseUrl: string; apiKey: string },
): Promise<number> {
  // The same schema as the window's "Add store": the CLI accepts exactly what the app accepts.
  const store = await core.services.stores.add(AddStoreInput.parse(input));
  io.out(`Added store "${store.name}" with id ${store.id} (key kept in: ${store.keyStorage}).`);
  await printLinkHints(core, io, store.id);
  return 0;
}

export async function addDemo(core: Core, io: Io): Promise<number> {
  const store = await core.services.stores.openDemo({});
  io.out(`Demo store ready with id ${store.id}.`);
  await printLinkHints(core, io, store.id);
  return 0;
}

/** Syncs one store or all of them, printing progress; non-zero when any store did not sync. */
export async function sync(core: Core, io: Io, storeId: string | null): Promise<number> {
  const names = new Map((await core.services.stores.list({})).map((s) => [s.id, s.name]));
  const name = (id: string) => names.get(id) ?? id;
  const reports = new Map<string, SyncReport>();
  let settle: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => (settle = resolve));
  let waitingFor: ReadonlySet<string> | null = null;
  // One line per phase start and end, and at most one a second in between: readable in a cron log.
  const lastPrinted = new Map<string, { phase: string; at: number }>();
  const shouldPrint = (p: SyncProgress) => {
    const last = lastPrinted.get(p.storeId);
    const now = Date.now();
    const print =
      !last ||
      last.phase !== p.phase ||
      p.done === p.total ||
      now - last.at >= PROGRESS_INTERVAL_MS;
    if (print) lastPrinted.set(p.storeId, { phase: p.phase, at: now });
    return print;
  };

  // Subscribed before starting, so no event of a fast sync is missed.
  const unsubscribe = core.subscribe((event) => {
    if (event.name === 'sync.progress' && shouldPrint(event.payload)) {
      const p = event.payload;
      io.out(`${name(p.storeId)}: ${p.phase} ${p.done}${p.total === null ? '' : `/${p.total}`}`);
    }
    if (event.name === 'sync.finished') {
      const report = event.payload;
      reports.set(report.storeId, report);
      if (waitingFor && [...waitingFor].every((id) => reports.has(id))) settle();
    }
  });
  try {
    const started = storeId
      ? (await core.services.sync.start({ storeId })).started
        ? [storeId]
        : []
      : (await core.services.sync.startAll({})).started;
    if (started.length === 0) {
      io.err(storeId ? `${name(storeId)} is already syncing.` : 'There are no stores to sync.');
      return storeId ? 1 : 0;
    }
    waitingFor = new Set(started);
    if (started.every((id) => reports.has(id))) settle();
    await allDone;
  } finally {
    unsubscribe();
  }

  let failed = 0;
  for (const report of reports.values()) {
    const pushed = report.edits
      ? `${report.edits.sent} edits sent, ${report.edits.failed} failed, ${report.edits.conflicts} in conflict, ${report.edits.waiting} waiting; `
      : '';
    const summary = `${pushed}${report.testsSeen} tests, ${report.resultsFetched} results, ${report.testsRemoved} removed, ${report.setAside} set aside, ${report.requests} requests`;
    if (report.outcome === 'ok' || report.outcome === 'partial') {
      io.out(`${name(report.storeId)}: ${report.outcome} (${summary})`);
    } else {
      failed += 1;
      const why = report.problem
        ? `${report.problem.title}: ${report.problem.detail}`
        : 'no details';
      io.err(`${name(report.storeId)}: ${report.outcome}. ${why}`);
    }
  }
  // The push went first; an edit the store refused or that conflicts needs the user: say so, exit non-zero.
  for (const id of reports.keys()) {
    const stuck = (await core.services.edits.list({ storeId: id })).filter(
      (e) => e.state === 'failed' || e.state === 'conflict',
    );
    for (const edit of stuck) {
      failed += 1;
      const why = edit.problem
        ? `${edit.problem.title}: ${edit.problem.detail}`
        : (edit.note ?? '');
      io.err(`${name(id)}: ${edit.kind} "${edit.label}" ${edit.state}. ${why}`);
    }
  }
  await printLinkHints(core, io, storeId);
  return failed > 0 ? 1 : 0;
}

/** The outbox of one store or all: each record's state and the fields it changes. */
export async function pending(core: Core, io: Io, storeId: string | null): Promise<number> {
  const names = new Map((await core.services.stores.list({})).map((s) => [s.id, s.name]));
  const edits = await core.services.edits.list({ storeId });
  if (edits.length === 0) {
    io.out('No pending edits.');
    return 0;
  }
  const rows = edits.map((e) => [
    names.get(e.storeId) ?? e.storeId,
    e.kind,
    e.recordId,
    e.label,
    e.state,
    e.changes.map((c) => `${c.field}${c.conflict ? '!' : ''}=${JSON.stringify(c.mine)}`).join(' '),
    e.problem ? `${e.problem.title}: ${e.problem.detail}` : (e.note ?? ''),
  ]);
  for (const line of table(['STORE', 'KIND', 'ID', 'LABEL', 'STATE', 'CHANGES', 'NOTE'], rows))
    io.out(line);
  return 0;
}

/** Writes one report (or, as .xlsx, every report) to a file or standard output; progress on stderr. */
export async function exportReport(
  core: Core,
  io: Io,
  request: ExportRequest,
  outFile: string | null,
  alias = false,
): Promise<number> {
  let last = 0;
  const onProgress = (p: { rows: number; done: number; total: number | null }) => {
    const now = Date.now();
    if (now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    io.err(
      `${request.report}: ${p.done}${p.total === null ? '' : `/${p.total}`} read, ${p.rows} rows`,
    );
  };
  if (outFile === null) {
    const stdout = io.stdout;
    if (!stdout) throw new Error('No standard output to write to; use --out FILE.');
    try {
      const rows = await core.reports.write(request, stdout, { onProgress });
      io.err(`Exported ${rows} rows of the ${request.report} report.`);
    } catch (error) {
      // The reader closed the pipe (`| head`): it has what it wanted; that is no failure.
      if (error instanceof Error && 'code' in error && error.code === 'EPIPE') return 0;
      throw error;
    }
    return 0;
  }
  const rows = await core.reports.writeFile(request, outFile, { onProgress });
  io.out(
    alias
      ? `Exported ${rows} tests to ${outFile}.`
      : `Exported ${rows} rows of ${request.report === 'all' ? 'all reports' : `the ${request.report} report`} to ${outFile}.`,
  );
  return 0;
}

function syncState(store: StoreSummary): string {
  const p = store.sync.progress;
  return p
    ? `${store.sync.state} (${p.phase} ${p.done}${p.total === null ? '' : `/${p.total}`})`
    : store.sync.state;
}

/** Left-aligned columns separated by two spaces. */
function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}
