// `clientReports.*`: the finished report of a test or a store, written where the host saves (HTML, or PDF
// where the host can print), its plain-text summary, and its header and locale.
import type { Services } from '#shared/contract/index';
import { DEFAULT_CLIENT_REPORT_SETTINGS } from '#shared/contract/client-reports';
import { problem } from '#shared/problem';
import type { Db } from '../db/types';
import {
  buildClientReport,
  readClientReportSettings,
  writeClientReportSettings,
} from '../reports/client/build';
import type { PrintToPdf, SaveFile } from '../reports/save';
import { writeFileAtomically } from '../reports/write-file';

export interface ClientReportsServiceDeps {
  db: Db;
  clock: () => number;
  saveFile: SaveFile | undefined;
  printToPdf: PrintToPdf | undefined;
  /** Resolves once no decision is being made again, so the report shows the current calls. */
  decisionsSettled?: () => Promise<void>;
  /** The core's fetch: the sides' screenshots are embedded as the report is written. */
  fetch?: typeof fetch;
}

/** US Letter where it is the custom (the US and Canada), A4 everywhere else. */
function pageSizeFor(locale: string): 'A4' | 'Letter' {
  const region = (locale || Intl.DateTimeFormat().resolvedOptions().locale)
    .split('-')
    .at(-1)
    ?.toUpperCase();
  return region === 'US' || region === 'CA' ? 'Letter' : 'A4';
}

export function createClientReportsService(
  deps: ClientReportsServiceDeps,
): Services['clientReports'] {
  return {
    settings: async () => readClientReportSettings(deps.db),

    async setSettings(patch) {
      const next = {
        ...DEFAULT_CLIENT_REPORT_SETTINGS,
        ...readClientReportSettings(deps.db),
        ...patch,
      };
      writeClientReportSettings(deps.db, next, new Date(deps.clock()).toISOString());
      return next;
    },

    async save({ scope, format, detail }) {
      if (!deps.saveFile) {
        throw problem(
          'validation',
          400,
          'Cannot save here',
          'This host cannot save files; use the command line: report --store ID --out FILE.html.',
        );
      }
      if (format === 'pdf' && !deps.printToPdf) {
        throw problem(
          'validation',
          400,
          'PDF is made by the browser here',
          "Save the report as HTML and use your browser's Print → Save as PDF; the report's print layout is made for it.",
        );
      }
      await deps.decisionsSettled?.();
      const report = await buildClientReport(deps.db, scope, 'html', deps.clock(), {
        fetch: deps.fetch,
        detail,
      });
      const fileName =
        format === 'pdf' ? report.fileName.replace(/\.html$/, '.pdf') : report.fileName;
      const notSaved = { saved: false, fileName, location: null, downloadUrl: null, rows: 0 };
      const target = await deps.saveFile({ suggestedName: fileName, format });
      if (!target) return notSaved;
      try {
        const bytes =
          format === 'pdf' && deps.printToPdf
            ? await deps.printToPdf(report.content, {
                pageSize: pageSizeFor(readClientReportSettings(deps.db).locale),
              })
            : report.content;
        await writeFileAtomically(target.path, async (out) => {
          out.end(bytes);
        });
      } catch (error) {
        await target.discard?.();
        throw error;
      }
      const savedName = target.path.split(/[\\/]/).at(-1) ?? fileName;
      const where = await target.saved({ rows: report.tests, fileName: savedName });
      return {
        saved: true,
        fileName: savedName,
        location: where.location,
        downloadUrl: where.downloadUrl,
        rows: report.tests,
      };
    },

    async summary(scope) {
      await deps.decisionsSettled?.();
      const report = await buildClientReport(deps.db, scope, 'text', deps.clock());
      return { text: report.content, tests: report.tests };
    },
  };
}
