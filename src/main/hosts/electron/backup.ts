// File ▸ Back up your data…: where to, through the native save dialog, then the core's backup (SQLite's
// online backup while the app runs), then what the file holds or why it could not be written.
import { join } from 'node:path';
import { app, dialog, type BrowserWindow, type SaveDialogOptions } from 'electron';
import type { Core } from '#core/index';
import { ProblemError } from '#shared/problem';
import { BACKUP_LEAVES_OUT, backupContents } from '../common/backup-text';

export const BACKUP_EXTENSION = 'splitbook-backup';

/** Asks where, writes the backup, says how it went. Resolves with the file written, or null. */
export async function backUpFromMenu(
  core: Core,
  window: BrowserWindow | null,
  now: Date = new Date(),
): Promise<string | null> {
  const options: SaveDialogOptions = {
    title: 'Back up your data',
    defaultPath: join(
      app.getPath('documents'),
      `Splitbook backup ${now.toISOString().slice(0, 10)}.${BACKUP_EXTENSION}`,
    ),
    filters: [{ name: 'Splitbook backup', extensions: [BACKUP_EXTENSION] }],
  };
  const chosen = window
    ? await dialog.showSaveDialog(window, options)
    : await dialog.showSaveDialog(options);
  if (chosen.canceled || !chosen.filePath) return null;
  try {
    const info = await core.data.backup(chosen.filePath);
    const message = {
      type: 'info' as const,
      title: 'Backed up',
      message: 'Your data is backed up.',
      detail: `${backupContents(info)}.\n\nWritten to ${info.file}.\n\n${BACKUP_LEAVES_OUT}\nRestore it with: npm run cli -- restore FILE`,
    };
    if (window) await dialog.showMessageBox(window, message);
    else await dialog.showMessageBox(message);
    return info.file;
  } catch (error) {
    dialog.showErrorBox(
      'The backup was not written',
      error instanceof ProblemError
        ? `${error.problem.title}: ${error.problem.detail}`
        : error instanceof Error
          ? error.message
          : String(error),
    );
    return null;
  }
}
