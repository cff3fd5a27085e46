// CLI of the team server (`npm run team-server -- --data DIR …`): serve the team, or manage its members and grants; every answer is one JSON line.
//
// Serving, the first stdout line is {"url": "ws://127.0.0.1:P"} (wss:// with TLS) once it listens;
// log lines go to stderr. Member commands work on the data folder, beside a running server or not.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { MemberName, TeamStoreId } from '#shared/team/layout';
import {
  TeamServerError,
  addMember,
  grantStore,
  listMembers,
  openTeamDb,
  removeMember,
  revokeStore,
} from './db';
import { startTeamServer } from './server';

const USAGE = `Usage:
  team-server --data DIR [--port P (default 4747; 0: any free port)] [--host H (default 127.0.0.1)]
              [--tls-cert FILE --tls-key FILE] [--behind-tls-proxy] [--redis redis://HOST:PORT]
  team-server --data DIR member add --name NAME [--stores all|ID,ID]
  team-server --data DIR member remove --name NAME
  team-server --data DIR member list
  team-server --data DIR grant --name NAME --store ID|all
  team-server --data DIR revoke --name NAME --store ID|all`;

const Port = z.coerce.number().int().min(0).max(65_535);
const Stores = z.union([
  z.literal('all'),
  z
    .string()
    .transform((text) => text.split(',').map((part) => part.trim()))
    .pipe(z.array(TeamStoreId).min(1)),
]);
const StoreArg = z.union([z.literal('all'), TeamStoreId]);

function fail(message: string, status = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(status);
}

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) fail(`${what}: ${result.error.issues[0]?.message ?? 'invalid'}\n${USAGE}`);
  return result.data;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        data: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'behind-tls-proxy': { type: 'boolean' },
        redis: { type: 'string' },
        name: { type: 'string' },
        stores: { type: 'string' },
        store: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!values.data) fail(`--data DIR is required.\n${USAGE}`);
  const dataDir = values.data;
  const command = positionals.join(' ');
  const now = new Date().toISOString();

  if (command === '') {
    if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) {
      fail(`--tls-cert and --tls-key go together.\n${USAGE}`);
    }
    const server = await startTeamServer({
      dataDir,
      port: parse(Port, values.port ?? '4747', '--port'),
      host: values.host ?? '127.0.0.1',
      tls:
        values['tls-cert'] && values['tls-key']
          ? { cert: values['tls-cert'], key: values['tls-key'] }
          : null,
      behindTlsProxy: values['behind-tls-proxy'] ?? false,
      redisUrl: values.redis ?? null,
    });
    print({ url: server.url });
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      server.close().then(
        () => process.exit(0),
        (error: unknown) => fail(`Closing failed: ${String(error)}`, 1),
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    return;
  }

  const db = openTeamDb(dataDir);
  try {
    const name = () => parse(MemberName, values.name, '--name NAME');
    if (command === 'member add') {
      const stores = values.stores === undefined ? [] : parse(Stores, values.stores, '--stores');
      print(addMember(db, name(), stores, now));
    } else if (command === 'member remove') {
      const member = name();
      if (!removeMember(db, member))
        throw new TeamServerError(`There is no member named "${member}".`);
      print({ name: member, removed: true });
    } else if (command === 'member list') {
      print(listMembers(db));
    } else if (command === 'grant') {
      const store = parse(StoreArg, values.store, '--store ID');
      grantStore(db, name(), store, now);
      print({ name: values.name, store, granted: true });
    } else if (command === 'revoke') {
      const store = parse(StoreArg, values.store, '--store ID');
      print({ name: values.name, store, revoked: revokeStore(db, name(), store) });
    } else {
      fail(`Unknown command "${command}".\n${USAGE}`);
    }
  } finally {
    db.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof TeamServerError) fail(error.message, 1);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error), 1);
});
