// Runs a TypeScript entry point the way `npm run …` does (tsx), as a child process with its own env and stdin.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';

const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');

export function startTsx(
  entry: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [TSX_CLI, entry, ...args], { env, stdio: 'pipe' });
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runTsx(
  entry: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<Finished> {
  const child = startTsx(entry, args, options.env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves with the first stdout line matching `pattern` (rejects if the child exits first). */
export function waitForLine(
  child: ChildProcessWithoutNullStreams,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    let errors = '';
    child.stderr.on('data', (d: Buffer) => (errors += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      const match = pattern.exec(text);
      if (match) resolve(match);
    });
    child.on('close', (code) =>
      reject(new Error(`exited with ${code} before printing ${pattern}: ${text}${errors}`)),
    );
  });
}
