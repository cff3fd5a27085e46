// The team tests' real parts: the team server as a child process on loopback, its member commands, a redis-server per test, and "desktops" holding their own Y.Docs through @hocuspocus/provider.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'src/team-server/main.ts');
/** tsx as a loader in the one process, so the pid is the server's own (npm run team-server runs the same file). */
const NODE_ARGS = ['--import', 'tsx', MAIN];

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `splitbook-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** One run of a member command on a data folder: its JSON answer. */
export function teamCli(dataDir: string, ...args: string[]): unknown {
  const out = execFileSync(process.execPath, [...NODE_ARGS, '--data', dataDir, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out);
}

/** A member command expected to fail: its exit status and stderr. */
export function teamCliFails(
  dataDir: string,
  ...args: string[]
): { status: number; stderr: string } {
  try {
    execFileSync(process.execPath, [...NODE_ARGS, '--data', dataDir, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const failed = error as { status: number; stderr: string };
    return { status: failed.status, stderr: failed.stderr };
  }
  throw new Error(`team-server ${args.join(' ')} succeeded`);
}

export function addMember(dataDir: string, name: string, stores?: string): string {
  const answer = teamCli(
    dataDir,
    'member',
    'add',
    '--name',
    name,
    ...(stores === undefined ? [] : ['--stores', stores]),
  ) as { name: string; token: string };
  return answer.token;
}

export interface RunningServer {
  url: string;
  httpUrl: string;
  process: ChildProcess;
  stderr: () => string;
  /** SIGTERM (a clean stop that stores every document) or SIGKILL; resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startServer(
  dataDir: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningServer> {
  const child = spawn(process.execPath, [...NODE_ARGS, '--data', dataDir, '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve(line));
    child.once('exit', (code) =>
      reject(new Error(`team server exited (${code}) before its first line:\n${stderr}`)),
    );
  });
  const { url } = JSON.parse(first) as { url: string };
  return {
    url,
    httpUrl: url.replace(/^ws/, 'http'),
    process: child,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningRedis {
  url: string;
  stop(): Promise<void>;
}

/** A redis-server of its own on a free loopback port, no persistence; stopped by its pid. */
export async function startRedis(): Promise<RunningRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGTERM');
        await exited;
      }
    },
  };
}

export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<number> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - started;
}

/** Like waitFor, for a condition that asks a core (async): polled every 25 ms; the ms it took. */
export async function until(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

/** A desktop's side of the team: its own Y.Docs (one per store it opened) and one socket. */
export class Desktop {
  readonly docs = new Map<string, Y.Doc>();
  readonly providers = new Map<string, HocuspocusProvider>();
  readonly failures: string[] = [];
  readonly stateless: string[] = [];
  readonly closes: string[] = [];
  private socket: HocuspocusProviderWebsocket | null = null;

  constructor(
    private url: string,
    private readonly token: string,
    private readonly WebSocketClass: new (
      url: string,
      protocols?: string | string[],
    ) => WebSocket = WebSocket,
  ) {}

  doc(name: string): Y.Doc {
    let doc = this.docs.get(name);
    if (!doc) {
      doc = new Y.Doc();
      this.docs.set(name, doc);
    }
    return doc;
  }

  /** Connects (again) to `url` and opens every store it holds plus `names`. */
  connect(names: string[] = [], url: string = this.url): void {
    this.disconnect();
    this.url = url;
    this.socket = new HocuspocusProviderWebsocket({
      url,
      WebSocketPolyfill: this.WebSocketClass,
      delay: 100,
      minDelay: 100,
      maxDelay: 1000,
      messageReconnectTimeout: 30_000,
    });
    for (const name of new Set([...this.docs.keys(), ...names])) this.open(name);
  }

  private open(name: string): void {
    if (!this.socket) throw new Error('not connected');
    const provider = new HocuspocusProvider({
      websocketProvider: this.socket,
      name,
      document: this.doc(name),
      token: this.token,
      onAuthenticationFailed: ({ reason }) => this.failures.push(`${name}: ${reason}`),
      onStateless: ({ payload }) => this.stateless.push(payload),
      onClose: ({ event }) => this.closes.push(`${event.code} ${event.reason}`),
    });
    provider.attach();
    this.providers.set(name, provider);
  }

  synced(name: string): boolean {
    const provider = this.providers.get(name);
    return provider !== undefined && provider.isSynced && !provider.hasUnsyncedChanges;
  }

  async waitSynced(
    names: string[] = [...this.providers.keys()],
    timeoutMs = 30_000,
  ): Promise<number> {
    return waitFor(
      () => names.every((name) => this.synced(name)),
      `sync of ${names.join(', ')}`,
      timeoutMs,
    );
  }

  disconnect(): void {
    for (const provider of this.providers.values()) provider.destroy();
    this.providers.clear();
    this.socket?.destroy();
    this.socket = null;
  }
}
