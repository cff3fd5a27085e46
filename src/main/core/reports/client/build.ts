// One client report from the cache, ready to write: its HTML (or plain-text summary), the file name that
// says what it is, and how many tests it holds. Shared by the window (clientReports.save) and the CLI.
import {
  ClientReportSettings,
  DEFAULT_CLIENT_REPORT_SETTINGS,
  DEFAULT_REPORT_DAYS,
  type ClientReportScope,
} from '#shared/contract/client-reports';
import { readSettingRow, writeSettingRow } from '../../db/user/settings';
import type { Db } from '../../db/types';
import { safeFileName } from './escape';
import { learningsOf } from '../../programme/learnings';
import { assertSynced, loadClientReport } from './load';
import { renderStoreReport, renderTestReport, textSummary, type StoreSection } from './render';
import { collectShots, NO_SHOTS } from './screenshots';

const DAY_MS = 86_400_000;
const SETTINGS_KEY = 'clientReports';

/** The report's header and locale (user file; defaults when never set or unreadable). */
export function readClientReportSettings(db: Db): ClientReportSettings {
  try {
    const value = readSettingRow(db, SETTINGS_KEY);
    if (value === null) return DEFAULT_CLIENT_REPORT_SETTINGS;
    const parsed = ClientReportSettings.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : DEFAULT_CLIENT_REPORT_SETTINGS;
  } catch {
    return DEFAULT_CLIENT_REPORT_SETTINGS;
  }
}

export function writeClientReportSettings(
  db: Db,
  settings: ClientReportSettings,
  at: string,
): void {
  writeSettingRow(db, SETTINGS_KEY, settings, at);
}

export type BuiltReport = {
  /** The whole HTML document (format html) or the bullets (format text). */
  content: string;
  /** `<store> – <test title> – <date>.html`, safe on every file system. */
  fileName: string;
  tests: number;
  period: { since: string; until: string };
};

/** The period, defaulting to the last 30 days up to today. */
export function periodOf(
  scope: Pick<ClientReportScope, 'since' | 'until'>,
  now: number,
): { since: string; until: string } {
  const until = scope.until ?? new Date(now).toISOString().slice(0, 10);
  const since =
    scope.since ??
    new Date(Date.parse(`${until}T00:00:00Z`) - (DEFAULT_REPORT_DAYS - 1) * DAY_MS)
      .toISOString()
      .slice(0, 10);
  return { since, until };
}

export type BuildOptions = {
  /** Fetches the sides' screenshots to embed (the core's fetch); without it they stay links. */
  fetch?: typeof fetch;
  /** A store report's full sections (learnings, two pages a test) instead of a card a test. */
  detail?: boolean;
};

export async function buildClientReport(
  db: Db,
  scope: ClientReportScope,
  format: 'html' | 'text',
  now: number,
  build: BuildOptions = {},
): Promise<BuiltReport> {
  assertSynced(db, scope.storeId);
  const period = periodOf(scope, now);
  const sections = loadClientReport(db, {
    storeId: scope.storeId,
    testId: scope.testId,
    since: period.since,
    until: period.until,
  });
  const settings = readClientReportSettings(db);
  const options = {
    header: settings.header,
    locale: settings.locale || undefined,
    generatedAt: new Date(now).toISOString(),
    detail: build.detail === true,
  };
  const date = new Date(now).toISOString().slice(0, 10);
  const tests = sections.flatMap((section) => section.tests);
  const single = scope.testId !== null ? tests[0] : undefined;
  const storeName = scope.storeId === null ? 'All stores' : (sections[0]?.storeName ?? 'Store');
  const name = single
    ? `${single.storeName} – ${single.test.title} – ${date}`
    : `${storeName} – tests ${period.since} to ${period.until}`;
  if (format === 'text') {
    return {
      content: textSummary(tests, { locale: options.locale }),
      fileName: safeFileName(name, 'txt'),
      tests: tests.length,
      period,
    };
  }
  // Read from the cache first: the images are fetched after, with no transaction held.
  const withPages = single ? sections : withLearnings(db, sections, scope.storeId, period, now);
  const shots = build.fetch
    ? await collectShots(
        tests.map((t) => t.test),
        build.fetch,
      )
    : NO_SHOTS;
  const content = single
    ? renderTestReport(single, { ...options, shots })
    : renderStoreReport(withPages, period, { ...options, shots });
  return { content, fileName: safeFileName(name, 'html'), tests: tests.length, period };
}

/** Each store's learnings over the report's period (core/programme), for the page after its summary. */
function withLearnings(
  db: Db,
  sections: readonly StoreSection[],
  storeId: string | null,
  period: { since: string; until: string },
  now: number,
): StoreSection[] {
  const learnings = learningsOf(db, { storeId, ...period }, now);
  return sections.map((section) => {
    const figures = learnings.stores.find((s) => s.storeId === section.storeId)?.figures;
    if (figures === undefined) return section;
    return {
      ...section,
      learnings: {
        figures,
        tests: learnings.tests.filter((t) => t.storeId === section.storeId),
        impact: learnings.impact.filter((row) => row.storeId === section.storeId),
        prior: learnings.priors.find((p) => p.storeId === section.storeId) ?? null,
        definition: learnings.definition,
        impactNote: learnings.impactNote,
      },
    };
  });
}
