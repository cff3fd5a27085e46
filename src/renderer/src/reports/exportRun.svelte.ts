// One export from the window: calls reports.export, follows reports.progress, cancels, and hands the
// browser host's file to the browser as a download.
import type { ExportProgress, ExportRequest, ExportResult } from '#shared/contract/index';
import type { Problem } from '#shared/problem';
import { api, toProblem } from '../lib/api';
import { downloadExport, getBridge } from '../lib/bridge';

/** An export shorter than this shows no progress at all (no flash of a bar). */
export const PROGRESS_AFTER_MS = 1_000;

export type { ExportRequest };

export type RunState =
  | { phase: 'idle' }
  | { phase: 'running'; exportId: string; cancelling: boolean }
  | { phase: 'saved'; result: ExportResult; downloaded: boolean }
  /** The user closed the save dialog, or cancelled the export: nothing was written. */
  | { phase: 'not-saved'; cancelled: boolean }
  | { phase: 'failed'; problem: Problem };

export class ExportRun {
  state = $state.raw<RunState>({ phase: 'idle' });
  progress = $state.raw<ExportProgress | null>(null);
  /** True once the running export has taken longer than PROGRESS_AFTER_MS. */
  slow = $state(false);

  get running(): boolean {
    return this.state.phase === 'running';
  }

  async start(request: ExportRequest): Promise<void> {
    if (this.running) return;
    const exportId = crypto.randomUUID();
    this.progress = null;
    this.slow = false;
    this.state = { phase: 'running', exportId, cancelling: false };
    const off = getBridge().on('reports.progress', (progress) => {
      if (progress.exportId === exportId) this.progress = progress;
    });
    const timer = setTimeout(() => (this.slow = true), PROGRESS_AFTER_MS);
    try {
      const result = await api.reports.export({ ...request, exportId });
      const cancelled = this.state.phase === 'running' && this.state.cancelling;
      if (!result.saved) {
        this.state = { phase: 'not-saved', cancelled };
        return;
      }
      if (result.downloadUrl !== null) await downloadExport(result.downloadUrl, result.fileName);
      this.state = { phase: 'saved', result, downloaded: result.downloadUrl !== null };
    } catch (error) {
      this.state = { phase: 'failed', problem: toProblem(error) };
    } finally {
      clearTimeout(timer);
      off();
      this.slow = false;
    }
  }

  async cancel(): Promise<void> {
    const state = this.state;
    if (state.phase !== 'running' || state.cancelling) return;
    this.state = { ...state, cancelling: true };
    try {
      await api.reports.cancel({ exportId: state.exportId });
    } catch {
      // The export ends on its own either way; its answer says whether a file was written.
    }
  }

  reset(): void {
    if (!this.running) this.state = { phase: 'idle' };
  }
}
