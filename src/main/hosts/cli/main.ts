// The command-line host (`npm run cli -- <command>`): sync and export without a window, e.g. for scheduled reports.
import type { Writable } from 'node:stream';
import { openCore } from '../common/boot';
import { runCli } from './run';
import { resolveDataDir } from '../common/data-dir';

/**
 * Lines to a standard stream that a reader may close early (`restore | head -1`): what the command did
 * is done, and the rest of its output has nowhere to go, which is no failure worth a stack trace. The
 * command goes on to its end (a restore or an edit is never cut short) and exits as it would have.
 */
function linesTo(stream: Writable): (line: string) => void {
  let open = true;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    open = false;
  });
  return (line) => {
    if (open) stream.write(`${line}\n`);
  };
}

runCli(process.argv.slice(2), (dataDir) => openCore('cli', resolveDataDir(dataDir)), {
  out: linesTo(process.stdout),
  err: linesTo(process.stderr),
  stdout: process.stdout,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
