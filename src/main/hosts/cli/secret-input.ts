// Reads an API key without putting it in argv: from SPLITBOOK_API_KEY, a pipe, or a prompt that does not echo.
import type { ReadStream } from 'node:tty';

export const API_KEY_ENV = 'SPLITBOOK_API_KEY';
const MAX_KEY_BYTES = 8192;

export async function readApiKey(prompt: string): Promise<string> {
  return readSecret(API_KEY_ENV, prompt);
}

/** A secret from the environment variable `env`, a pipe, or a prompt that does not echo (the team token too). */
export async function readSecret(env: string, prompt: string): Promise<string> {
  const fromEnv = process.env[env]?.trim();
  if (fromEnv) return fromEnv;
  const stdin = process.stdin;
  const key = stdin.isTTY ? await promptHidden(stdin, prompt) : await readPipe(stdin);
  return key.trim();
}

async function readPipe(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (text.length > MAX_KEY_BYTES) throw new Error('The key on stdin is too long.');
  }
  // Only the first line: `echo key | …` and a file with a trailing newline both work.
  return text.split(/\r?\n/)[0] ?? '';
}

/** A terminal prompt in raw mode: the typed key is never shown; Ctrl+C aborts. */
function promptHidden(stdin: ReadStream, prompt: string): Promise<string> {
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (done: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      done();
    };
    const onData = (chars: string) => {
      for (const char of chars) {
        if (char === '\r' || char === '\n') return finish(() => resolve(typed));
        if (char === '\u0003') return finish(() => reject(new Error('Cancelled.')));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
