// `backup` and `restore`: the user's own data (everything the stores do not hold) as one file, and back.
import type { Core } from '#core/index';
import { BACKUP_LEAVES_OUT, backupContents } from '../common/backup-text';
import type { Io } from './commands';

export async function backup(core: Core, io: Io, out: string): Promise<number> {
  const info = await core.data.backup(out);
  io.out(`Backed up ${backupContents(info)}.`);
  io.out(`Written to ${info.file} (${Math.ceil(info.bytes / 1024)} KiB).`);
  io.out(BACKUP_LEAVES_OUT);
  return 0;
}

export async function restore(core: Core, io: Io, file: string): Promise<number> {
  const done = await core.data.restore(file);
  io.out(
    `Restored ${done.file}, made ${done.createdAt} by Splitbook ${done.appVersion}: ${backupContents(done)}.`,
  );
  io.out(`The data it replaced is kept in ${done.previous}.`);
  if (done.storesLeft.length > 0)
    io.out(
      `No longer listed (not in the backup): ${done.storesLeft.join(', ')}. Their keys are still in the keychain.`,
    );
  io.out(
    "The cache starts empty: sync to fill it (sync --all). A store whose key is not in this computer's keychain needs it again: the store's menu in the window, Change API key….",
  );
  return 0;
}
