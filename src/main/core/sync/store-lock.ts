// A per-store lock file, so two processes on one data folder (the app and a scheduled CLI) never sync
// the same store at once. A lock left by a killed process is taken over once its process is gone.
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export type StoreLocks = (storeId: string) => { release(): void } | null;

export function createStoreLocks(dataDir: string, pid = process.pid): StoreLocks {
  const dir = join(dataDir, 'locks');
  mkdirSync(dir, { recursive: true });
  return (storeId) => {
    const file = join(dir, `${storeId.replace(/[^A-Za-z0-9_-]/g, '_')}.lock`);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(file, 'wx');
        writeSync(fd, String(pid));
        closeSync(fd);
        return { release: () => rmSync(file, { force: true }) };
      } catch (error) {
        if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
        if (holderAlive(file)) return null;
        rmSync(file, { force: true });
      }
    }
    return null;
  };
}

function holderAlive(file: string): boolean {
  let holder: number;
  try {
    holder = Number(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
  if (!Number.isInteger(holder) || holder <= 0) return false;
  try {
    process.kill(holder, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it still holds the lock.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}
