// `clientReports.*`: the finished report a consultant hands a client — one test's, or a store's (or
// every store's) over a period — as self-contained HTML (or PDF where the host can print), a plain-text
// summary to paste, and the report's header and locale, kept on this computer.
import { z } from 'zod';
import { Empty, method, StoreId } from './common';
import { ExportResult } from './reports';

/** A logo as a data: URL of an image (the report embeds it; nothing is ever loaded). About 500 kB at most. */
export const LogoDataUrl = z
  .string()
  .max(700_000, 'The logo is too large: choose an image under 500 kB.')
  .regex(
    /^data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=]+$/,
    'The logo must be a PNG, JPEG, GIF, WebP or SVG image.',
  );

export const ReportHeader = z.object({
  /** The consultant's or the agency's name. */
  name: z.string().trim().max(200),
  /** A line under it: a tagline, a contact. */
  line: z.string().trim().max(300),
  logoDataUrl: LogoDataUrl.nullable(),
});
export type ReportHeader = z.infer<typeof ReportHeader>;

export const ClientReportSettings = z.object({
  header: ReportHeader,
  /** BCP 47 locale of numbers and dates in reports; '' for the system's. */
  locale: z.string().trim().max(35),
});
export type ClientReportSettings = z.infer<typeof ClientReportSettings>;

export const DEFAULT_CLIENT_REPORT_SETTINGS: ClientReportSettings = {
  header: { name: '', line: '', logoDataUrl: null },
  locale: '',
};

/** Default period of a store report: the last 30 days. */
export const DEFAULT_REPORT_DAYS = 30;

export const ClientReportScope = z
  .object({
    /** One store, or every store (null). */
    storeId: StoreId.nullable().default(null),
    /** One test of that store; null for the store's period. */
    testId: z.string().max(64).nullable().default(null),
    /** 'YYYY-MM-DD', both ends included; default the last 30 days to today. */
    since: z.iso.date().nullable().default(null),
    until: z.iso.date().nullable().default(null),
  })
  .refine((scope) => scope.testId === null || scope.storeId !== null, {
    error: 'A test report needs its store.',
    path: ['storeId'],
  })
  .refine((scope) => scope.since === null || scope.until === null || scope.since <= scope.until, {
    error: 'The period starts after it ends.',
    path: ['since'],
  });
export type ClientReportScope = z.infer<typeof ClientReportScope>;

export const CLIENT_REPORT_FORMATS = ['html', 'pdf'] as const;

export const clientReports = {
  settings: method(Empty, ClientReportSettings),
  setSettings: method(ClientReportSettings.partial(), ClientReportSettings),
  /** Writes the report where the host saves (Electron: the save dialog; the browser: a download). */
  save: method(
    z.object({
      scope: ClientReportScope,
      format: z.enum(CLIENT_REPORT_FORMATS).default('html'),
      /**
       * A store report's full sections: the learnings page and about two pages a test. By default a
       * one-page summary, then one compact card a test (two a page).
       */
      detail: z.boolean().default(false),
    }),
    ExportResult,
  ),
  /** Three to six bullets of the scope's calls, for the clipboard. */
  summary: method(ClientReportScope, z.object({ text: z.string(), tests: z.int() })),
};
