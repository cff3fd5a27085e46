// The team server's one SQLite file (DIR/team.db): members (token hashes only), their grants, the team's stores and each store's Y.Doc.
//
// Nothing else is kept: no API key, no test data from a store's API, no token in clear. Every process
// on the folder (the server, its other instances, the `member` commands) opens the same file in WAL
// mode; a change one makes moves `PRAGMA data_version` for the others, which is how a running
// server learns of a removed member or a revoked grant within a second.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as Y from 'yjs';

export type Db = Database.Database;

export const DB_FILE = 'team.db';

/** Numbered, frozen once released; all pending ones run in one transaction. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE members (
     name TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL UNIQUE,
     all_stores INTEGER NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL
   ) STRICT;
   CREATE TABLE stores (
     id TEXT PRIMARY KEY,
     created_by TEXT,
     created_at TEXT NOT NULL
   ) STRICT;
   CREATE TABLE grants (
     member TEXT NOT NULL REFERENCES members (name) ON DELETE CASCADE,
     store_id TEXT NOT NULL REFERENCES stores (id),
     PRIMARY KEY (member, store_id)
   ) STRICT;
   CREATE TABLE documents (
     name TEXT PRIMARY KEY REFERENCES stores (id),
     state BLOB NOT NULL,
     updated_at TEXT NOT NULL
   ) STRICT;`,
];

/** A refusal the command line or the server shows as it is (no stack). */
export class TeamServerError extends Error {
  override name = 'TeamServerError';
}

export function openTeamDb(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dataDir, DB_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > MIGRATIONS.length) {
    db.close();
    throw new TeamServerError(
      `${path.join(dataDir, DB_FILE)} was written by a newer Splitbook team server (schema ${version}); update this one.`,
    );
  }
  if (version < MIGRATIONS.length) {
    db.transaction(() => {
      for (const sql of MIGRATIONS.slice(version)) db.exec(sql);
      db.pragma(`user_version = ${MIGRATIONS.length}`);
    }).immediate();
  }
  return db;
}

/** Whether another connection committed since the last call (cheap: read every half second). */
export function dataVersionWatcher(db: Db): () => boolean {
  let last = Number(db.pragma('data_version', { simple: true }));
  return () => {
    const now = Number(db.pragma('data_version', { simple: true }));
    const moved = now !== last;
    last = now;
    return moved;
  };
}

// ---------- tokens ----------

/** A new member token: 256 random bits, shown once. */
export function newToken(): string {
  return `sbt_${randomBytes(32).toString('base64url')}`;
}

/**
 * What is kept of a token. SHA-256 and not a slow password hash: a token is 256 random bits, so
 * nothing can be guessed from its hash, and a lookup by hash needs a deterministic one.
 */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

// ---------- members and grants ----------

export interface MemberRow {
  name: string;
  stores: 'all' | string[];
  createdAt: string;
}

export function addMember(
  db: Db,
  name: string,
  stores: 'all' | string[],
  now: string,
): { name: string; token: string } {
  const token = newToken();
  db.transaction(() => {
    if (db.prepare('SELECT 1 FROM members WHERE name = ?').get(name)) {
      throw new TeamServerError(`A member named "${name}" exists already (member remove first).`);
    }
    db.prepare(
      'INSERT INTO members (name, token_hash, all_stores, created_at) VALUES (?, ?, ?, ?)',
    ).run(name, tokenHash(token), stores === 'all' ? 1 : 0, now);
    if (stores !== 'all') for (const store of stores) grantStore(db, name, store, now);
  }).immediate();
  return { name, token };
}

export function removeMember(db: Db, name: string): boolean {
  return db.prepare('DELETE FROM members WHERE name = ?').run(name).changes > 0;
}

export function listMembers(db: Db): MemberRow[] {
  const members = db
    .prepare<[], { name: string; all: number; createdAt: string }>(
      'SELECT name, all_stores AS "all", created_at AS createdAt FROM members ORDER BY name',
    )
    .all();
  const grants = db
    .prepare<[], { member: string; store: string }>(
      'SELECT member, store_id AS store FROM grants ORDER BY member, store_id',
    )
    .all();
  return members.map((member) => ({
    name: member.name,
    stores:
      member.all === 1
        ? 'all'
        : grants.filter((grant) => grant.member === member.name).map((grant) => grant.store),
    createdAt: member.createdAt,
  }));
}

function requireMember(db: Db, name: string): { all: number } {
  const row = db
    .prepare<[string], { all: number }>('SELECT all_stores AS "all" FROM members WHERE name = ?')
    .get(name);
  if (!row) throw new TeamServerError(`There is no member named "${name}".`);
  return row;
}

/** Grants a store (`all`: every store, present and future); the store is recorded if new. */
export function grantStore(db: Db, name: string, store: string, now: string): void {
  db.transaction(() => {
    requireMember(db, name);
    if (store === 'all') {
      db.prepare('UPDATE members SET all_stores = 1 WHERE name = ?').run(name);
      return;
    }
    ensureStore(db, store, null, now);
    db.prepare('INSERT OR IGNORE INTO grants (member, store_id) VALUES (?, ?)').run(name, store);
  }).immediate();
}

/** Revokes one store, or `all`; says whether the member had it. */
export function revokeStore(db: Db, name: string, store: string): boolean {
  return db
    .transaction(() => {
      const member = requireMember(db, name);
      if (store === 'all') {
        db.prepare('UPDATE members SET all_stores = 0 WHERE name = ?').run(name);
        return member.all === 1;
      }
      if (member.all === 1) {
        throw new TeamServerError(
          `"${name}" is granted all stores: revoke --store all first, then grant the ones to keep.`,
        );
      }
      return (
        db.prepare('DELETE FROM grants WHERE member = ? AND store_id = ?').run(name, store)
          .changes > 0
      );
    })
    .immediate();
}

/** The member a token belongs to, or null (unknown or removed). */
export function memberOfToken(db: Db, token: string): { name: string; all: boolean } | null {
  return memberOfHash(db, tokenHash(token));
}

/** The member whose token has this hash: a member removed and added again has another. */
export function memberOfHash(db: Db, hash: string): { name: string; all: boolean } | null {
  const row = db
    .prepare<[string], { name: string; all: number }>(
      'SELECT name, all_stores AS "all" FROM members WHERE token_hash = ?',
    )
    .get(hash);
  return row ? { name: row.name, all: row.all === 1 } : null;
}

export type Access = 'granted' | 'granted-new' | 'no-member' | 'no-grant' | 'no-store';

/**
 * Whether a member may open a store's document. A store the server does not know is opened (and so
 * made) only by a member granted `all`: that is how a lost data folder is filled again from a
 * desktop's copy; everyone else makes a store with `POST /v1/stores`.
 */
export function accessOf(db: Db, member: string, store: string): Access {
  const row = db
    .prepare<[string], { all: number }>('SELECT all_stores AS "all" FROM members WHERE name = ?')
    .get(member);
  if (!row) return 'no-member';
  const known = db.prepare('SELECT 1 FROM stores WHERE id = ?').get(store) !== undefined;
  if (row.all === 1) return known ? 'granted' : 'granted-new';
  if (!known) return 'no-store';
  const granted =
    db.prepare('SELECT 1 FROM grants WHERE member = ? AND store_id = ?').get(member, store) !==
    undefined;
  return granted ? 'granted' : 'no-grant';
}

/** The most stores one team may hold: a bound on what members can make. */
export const MAX_STORES = 10_000;

export function ensureStore(db: Db, id: string, createdBy: string | null, now: string): void {
  if (db.prepare('SELECT 1 FROM stores WHERE id = ?').get(id)) return;
  const count = Number(db.prepare('SELECT count(*) FROM stores').pluck().get());
  if (count >= MAX_STORES) {
    throw new TeamServerError(`This team holds ${MAX_STORES} stores, the most it may.`);
  }
  // OR IGNORE: another process on the folder (a second instance) may record the same store meanwhile.
  db.prepare('INSERT OR IGNORE INTO stores (id, created_by, created_at) VALUES (?, ?, ?)').run(
    id,
    createdBy,
    now,
  );
}

/** A new store made by a member (the desktop's `team share`), granted to them. */
export function createStore(db: Db, member: string, now: string): string {
  const id = globalThis.crypto.randomUUID();
  db.transaction(() => {
    ensureStore(db, id, member, now);
    const { all } = requireMember(db, member);
    if (all !== 1)
      db.prepare('INSERT INTO grants (member, store_id) VALUES (?, ?)').run(member, id);
  }).immediate();
  return id;
}

export interface StoreRow {
  teamStoreId: string;
  createdBy: string | null;
  createdAt: string;
}

/** The stores a member may open, oldest first. */
export function storesOf(db: Db, member: string): StoreRow[] {
  return db
    .prepare<[string, string], StoreRow>(
      `SELECT id AS teamStoreId, created_by AS createdBy, created_at AS createdAt FROM stores
       WHERE (SELECT all_stores FROM members WHERE name = ?) = 1
          OR id IN (SELECT store_id FROM grants WHERE member = ?)
       ORDER BY created_at, id`,
    )
    .all(member, member);
}

// ---------- documents ----------

export function loadDocument(db: Db, name: string): Uint8Array | null {
  const row = db
    .prepare<[string], { state: Buffer }>('SELECT state FROM documents WHERE name = ?')
    .get(name);
  return row ? new Uint8Array(row.state) : null;
}

/**
 * Stores a document's state. With other instances on the folder (`merge`), what is on disk is merged
 * in first, in the same transaction: an instance whose copy lags one change behind another's never
 * writes that change away.
 */
export function storeDocument(
  db: Db,
  name: string,
  state: Uint8Array,
  now: string,
  merge: boolean,
): void {
  db.transaction(() => {
    let next = state;
    if (merge) {
      const existing = loadDocument(db, name);
      if (existing) {
        const doc = new Y.Doc();
        Y.applyUpdate(doc, existing);
        Y.applyUpdate(doc, state);
        next = Y.encodeStateAsUpdate(doc);
        doc.destroy();
      }
    }
    db.prepare(
      `INSERT INTO documents (name, state, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
    ).run(name, Buffer.from(next), now);
  }).immediate();
}
