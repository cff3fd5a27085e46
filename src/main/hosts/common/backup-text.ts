// What a backup holds, in the words every host prints or shows (the CLI's backup and restore, Electron's menu).
import type { BackupInfo } from '#core/index';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "2 stores (Acme, Nordic), 3 unsent edits, 5 notes, …": the user's data a backup holds. */
export function backupContents(info: BackupInfo): string {
  const stores = info.stores.map((store) => store.name).join(', ');
  const { pendingEdits, notes, annotations, takeaways } = info.counts;
  return `${plural(info.stores.length, 'store')}${stores ? ` (${stores})` : ''}, ${plural(pendingEdits, 'unsent edit')}, ${plural(notes, 'note')}, ${plural(annotations, 'annotation')}, ${plural(takeaways, 'takeaway')}, with your settings, decision settings and plans, and review marks`;
}

/** What a backup leaves out, and why that is safe. */
export const BACKUP_LEAVES_OUT =
  'API keys stay in the keychain and are not in it; nor is the cache, which a sync brings back after a restore.';
