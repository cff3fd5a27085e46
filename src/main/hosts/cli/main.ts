// The command-line host (`npm run cli -- <command>`): sync and export without a window, e.g. for scheduled reports.
import { openCore } from '../common/boot';
import { runCli } from './run';
import { resolveDataDir } from '../common/data-dir';

runCli(process.argv.slice(2), (dataDir) => openCore('cli', resolveDataDir(dataDir)), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
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
