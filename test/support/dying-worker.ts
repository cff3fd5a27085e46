// Test support: a stand-in for a worker thread that crashes: it exits (code 3) at the first message it
// is sent. For the sync thread and the results decoder alike.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the stand-in under `dir`/`name` and returns its file. */
export function dyingWorker(dir: string, name: string): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'worker.mjs');
  writeFileSync(
    file,
    "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n",
  );
  return file;
}
