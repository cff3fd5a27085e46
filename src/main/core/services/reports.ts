// `reports.*`: the report list, an export saved through the host's saveFile capability, and cancel.
import { basename } from 'node:path';
import type { CoreEvent, Services } from '#shared/contract/index';
import { problem, ProblemError } from '#shared/problem';
import type { Db } from '../db/types';
import { CANCELLED_TITLE, reportsOf, suggestedFileName, writeExport } from '../reports/export';
import { reportInfos } from '../reports/registry';
import type { SaveFile } from '../reports/save';
import { writeFileAtomically } from '../reports/write-file';

export interface ReportsServiceDeps {
  db: Db;
  clock: () => number;
  saveFile: SaveFile | undefined;
  emit: (event: CoreEvent) => void;
  /** Resolves once no decision is being made again: the reports read the calls kept on the rows. */
  decisionsSettled?: () => Promise<void>;
}

const isCancelled = (error: unknown) =>
  error instanceof ProblemError && error.problem.title === CANCELLED_TITLE;

export function createReportsService(deps: ReportsServiceDeps): Services['reports'] {
  const running = new Map<string, AbortController>();

  return {
    list: async () => reportInfos(),

    async export(input) {
      const { exportId } = input;
      const fileName = suggestedFileName(input, deps.clock());
      const notSaved = { saved: false, fileName, location: null, downloadUrl: null, rows: 0 };
      if (!deps.saveFile) {
        throw problem(
          'validation',
          400,
          'Cannot save here',
          'This host cannot save files; use the command line: export <report> --out FILE.',
        );
      }
      if (running.has(exportId))
        throw problem(
          'conflict',
          409,
          'Export already running',
          `Export ${exportId} is already running.`,
        );
      // Refuse a bad request before asking the user where to save it.
      reportsOf(deps.db, input);
      const controller = new AbortController();
      running.set(exportId, controller);
      try {
        const target = await deps.saveFile({ suggestedName: fileName, format: input.format });
        if (!target || controller.signal.aborted) return notSaved;
        let rows: number;
        try {
          await deps.decisionsSettled?.();
          rows = await writeFileAtomically(target.path, (out) =>
            writeExport(deps.db, input, out, {
              now: deps.clock(),
              signal: controller.signal,
              onProgress: (p) =>
                deps.emit({ name: 'reports.progress', payload: { exportId, ...p } }),
            }),
          );
        } catch (error) {
          await target.discard?.();
          if (isCancelled(error)) return notSaved;
          throw error;
        }
        const where = await target.saved({ rows, fileName: basename(target.path) });
        return {
          saved: true,
          fileName: basename(target.path),
          location: where.location,
          downloadUrl: where.downloadUrl,
          rows,
        };
      } finally {
        running.delete(exportId);
      }
    },

    async cancel({ exportId }) {
      const controller = running.get(exportId);
      controller?.abort();
      return { cancelled: controller !== undefined };
    },
  };
}
