// The host capability an export saves through: Electron asks with its native dialog, the browser host
// hands the finished file to the browser as a download. Passed into the core as CoreDeps.saveFile.
import type { ExportFormat } from '#shared/contract/index';

export interface SaveTarget {
  /** Where the core writes the file (atomically: a temporary name, renamed when whole). */
  path: string;
  /** Called once the file is whole: what the app tells the user about where it went. */
  saved(info: {
    rows: number;
    fileName: string;
  }): Promise<{ location: string; downloadUrl: string | null }>;
  /** Called when the export failed or was cancelled after the target was chosen. */
  discard?(): Promise<void>;
}

/** What a saved file holds: a report export, or a client report (HTML, or PDF where the host prints). */
export type SaveFormat = ExportFormat | 'html' | 'pdf';

/** Asks the host where to save; null when the user cancelled. */
export type SaveFile = (request: {
  suggestedName: string;
  format: SaveFormat;
}) => Promise<SaveTarget | null>;

/** Prints an HTML document to PDF (Electron: a hidden window's printToPDF); absent where the host cannot. */
export type PrintToPdf = (
  html: string,
  options: { pageSize: 'A4' | 'Letter' },
) => Promise<Uint8Array>;
