// `team.*`: this desktop's copy of the team layer (a Y.Doc per shared store, kept in the user file), its connection to the team server, joining, sharing, linking and syncing; the records' reads and writes are records-service.ts's.
import { HocuspocusProvider } from '@hocuspocus/provider';
import * as Y from 'yjs';
import type { DecisionCall, Services, TeamPresence, TeamStatus } from '#shared/contract/index';
import { problem } from '#shared/problem';
import { initTeamDoc, TeamValueError, type Actor } from '#shared/team/records';
import { noteOf, setNote as setTeamNote } from '#shared/team/texts';
import { getStoreRow } from '../db/cache/stores';
import { notesFor } from '../db/user/notes';
import type { Db } from '../db/types';
import type { SecretStore } from '../secrets';
import { TeamConnection, waitConverged } from './connection';
import { findLinkOffers } from './links';
import { Presence } from './presence';
import { createTeamRecords, type SharedTexts } from './records-service';
import {
  adoptAnnotations,
  createSharedReviews,
  mirrorAnnotations,
  type SharedReviews,
} from './reviews';
import { createTeamDecisions, type SharedDecisions } from './settings';
import { memberOf, newTeamStore } from './server-http';
import { mirrorOnce, mirrorOwners, mirrorTexts, touchedBy } from './views';
import { watchTeamUpdates, type TeamWatch } from './watch';
import {
  appendUpdate,
  compact,
  copyOwners,
  dropLink,
  linkOfStore,
  linkOfTeamStore,
  links,
  loadDoc,
  markSynced,
  saveExchange,
  saveJoin,
  saveLeave,
  saveLink,
  teamRow,
  waitingUpdates,
} from '../db/user/team';

/**
 * The keychain account of a folder's member token: `team:` and a UUID made at the join (store accounts
 * are store ids, which never hold a colon), so each data folder of one user keeps its own member.
 */
const newTokenAccount = () => `team:${globalThis.crypto.randomUUID()}`;

/** The origin of updates read back from the user file: not written again. */
const LOADED = Symbol('loaded from the user file');

export interface TeamLayerDeps {
  db: Db;
  secrets: SecretStore;
  clock: () => number;
  fetch: typeof fetch;
  /** Stay connected while the core runs (the window's hosts); the CLI connects only for `team sync`. */
  stayConnected: boolean;
  /** The current call of a test, for a sign-off (null: no call made yet). */
  callOf(storeId: string, testId: string): Promise<DecisionCall | null>;
  /** A shared store's layer changed (any origin): the tests it touched, null for store-wide records. */
  onChanged?(storeId: string, testIds: string[] | null): void;
  /** Another member opened or left a store (the window's `team.presence` event). */
  presenceChanged?: (presence: TeamPresence) => void;
}

export interface TeamLayer {
  service: Services['team'];
  /** The layer's note and takeaway reads and writes for the notes and programme services (views.ts). */
  texts: SharedTexts;
  /** Review marks, annotations and the Changes view's team section (reviews.ts). */
  reviews: SharedReviews;
  /** A shared store's decision settings and plans through the layer, for the decisions service (settings.ts). */
  decisions: SharedDecisions;
  close(): void;
}

/** The origin of updates another process wrote to the user file (watch.ts): kept there already. */
const POLLED = Symbol('written by another process');

const notShared = (storeId: string) =>
  problem(
    'validation',
    400,
    'Store not shared',
    `Store ${storeId} is not shared with a team: "team share --store ${storeId}" shares it, "team link --store ${storeId} --team-store ID" links a colleague's.`,
  );

const notJoined = () =>
  problem(
    'validation',
    400,
    'No team joined',
    'Join a team first: "team join --url URL", the member token on standard input or in SPLITBOOK_TEAM_TOKEN.',
  );

export function createTeamLayer(deps: TeamLayerDeps): TeamLayer {
  const { db } = deps;
  const now = () => new Date(deps.clock()).toISOString();
  const docs = new Map<string, Y.Doc>();
  let connection: TeamConnection | null = null;
  let closed = false;
  const presence = new Presence({
    providers: () => connection?.providers() ?? new Map(),
    storeOf: (teamStoreId) => linkOfTeamStore(db, teamStoreId)?.storeId ?? null,
    member: () => {
      const team = teamRow(db);
      return team && team.leftAt === null ? team.member : null;
    },
    changed: (now) => deps.presenceChanged?.(now),
  });

  function docOf(teamStoreId: string): Y.Doc {
    let doc = docs.get(teamStoreId);
    if (doc) return doc;
    doc = new Y.Doc();
    loadDoc(db, teamStoreId, doc, LOADED);
    // Every change, ours or the server's, is kept at once: an edit made offline survives a restart.
    doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === LOADED || origin === POLLED) return;
      appendUpdate(
        db,
        teamStoreId,
        origin instanceof HocuspocusProvider ? 'remote' : 'local',
        update,
      );
    });
    // Views follow every change: the user file's copy of its texts, then the window's event.
    doc.on('afterTransaction', (transaction: Y.Transaction) => {
      if (transaction.origin === LOADED || closed) return;
      const storeId = linkOfTeamStore(db, teamStoreId)?.storeId;
      if (!storeId) return;
      const touched = touchedBy(transaction.doc, transaction);
      if (touched.tests.size === 0 && !touched.store) return;
      mirrorTexts(db, storeId, transaction.doc, touched.texts, now());
      if (touched.owners.size > 0) mirrorOwners(db, storeId, transaction.doc, touched.owners);
      if (touched.store) mirrorAnnotations(db, storeId, transaction.doc);
      decisions.mirror(storeId, transaction.doc, touched);
      deps.onChanged?.(storeId, touched.store ? null : [...touched.tests]);
    });
    docs.set(teamStoreId, doc);
    // The copy of the owners follows the layer as read now (a copy older than it never lingers).
    const linked = linkOfTeamStore(db, teamStoreId)?.storeId;
    if (linked) mirrorOwners(db, linked, doc, null);
    if (linked) adoptAnnotations(db, linked, doc, teamRow(db) ? actor() : null);
    return doc;
  }

  const decisions = createTeamDecisions({ db, docOf, actor });
  // What the team shared before this desktop copied texts into the user file gets there once.
  if (teamRow(db)) mirrorOnce(db, links(db), docOf, now());

  /** A window's core: another process's updates (the CLI beside it) reach its documents and views. */
  let watch: TeamWatch | null = null;
  if (deps.stayConnected) {
    for (const link of links(db)) docOf(link.teamStoreId);
    watch = watchTeamUpdates(db, (teamStoreId, update) => {
      if (closed || !linkOfTeamStore(db, teamStoreId)) return;
      Y.applyUpdate(docOf(teamStoreId), update, POLLED);
    });
  }

  function actor(): Actor {
    const team = teamRow(db);
    if (!team) throw notJoined();
    return { by: team.member, at: now() };
  }

  function requireStore(storeId: string): void {
    if (!getStoreRow(db, storeId)) {
      throw problem('notFound', 404, 'Store not found', `No store with id ${storeId}.`);
    }
  }

  function sharedDoc(storeId: string): Y.Doc {
    const link = linkOfStore(db, storeId);
    if (!link) throw notShared(storeId);
    return docOf(link.teamStoreId);
  }

  /** Runs a layer write, its refusal (a TeamValueError) said as a validation problem. */
  function writing<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      if (error instanceof TeamValueError) {
        throw problem('validation', 400, 'Refused', error.message);
      }
      throw error;
    }
  }

  async function tokenOrThrow(): Promise<string> {
    const account = teamRow(db)?.tokenAccount;
    const token = account ? await deps.secrets.get(account) : null;
    if (!token) {
      throw problem(
        'unauthorized',
        401,
        'No team token',
        'The member token is not in the keychain: join the team again ("team join --url URL").',
      );
    }
    return token;
  }

  function status(): TeamStatus {
    const team = teamRow(db);
    const joined = team !== null && team.leftAt === null;
    return {
      joined,
      url: team?.url ?? null,
      member: team?.member ?? null,
      connected: connection?.connected ?? false,
      lastExchangeAt: team?.lastExchangeAt ?? null,
      stores: links(db).map((link) => ({
        storeId: link.storeId,
        teamStoreId: link.teamStoreId,
        waiting: waitingUpdates(db, link),
        refused: connection?.refusal(link.teamStoreId) ?? null,
      })),
    };
  }

  function converged(teamStoreId: string): void {
    if (decisions.seed(teamStoreId)) return;
    markSynced(db, teamStoreId);
    saveExchange(db, now());
    compact(db, teamStoreId);
  }

  function connect(url: string, token: string): TeamConnection {
    const opened = new TeamConnection({
      url,
      token,
      onConverged: converged,
      onRefused: () => undefined,
    });
    for (const link of links(db)) opened.open(link.teamStoreId, docOf(link.teamStoreId));
    return opened;
  }

  /** The window's hosts: the connection's providers publish the open store as soon as they exist. */
  function publishPresence(): void {
    if (connection) presence.publish();
  }

  /** The window's hosts: connected while the core runs, from the start or the join on. */
  async function stayConnected(): Promise<void> {
    if (!deps.stayConnected || connection || closed) return;
    const team = teamRow(db);
    if (!team || team.leftAt !== null || links(db).length === 0) return;
    const token = await deps.secrets.get(team.tokenAccount).catch(() => null);
    if (!token || connection || closed) return;
    connection = connect(team.url, token);
    publishPresence();
  }
  void stayConnected();

  function linkStore(storeId: string, teamStoreId: string): void {
    const existing = linkOfStore(db, storeId);
    if (existing) {
      if (existing.teamStoreId === teamStoreId) return;
      throw problem(
        'conflict',
        409,
        'Store already shared',
        `Store ${storeId} is linked to team store ${existing.teamStoreId} already.`,
      );
    }
    const other = linkOfTeamStore(db, teamStoreId);
    if (other) {
      throw problem(
        'conflict',
        409,
        'Team store already linked',
        `Team store ${teamStoreId} is linked to store ${other.storeId} on this desktop already.`,
      );
    }
    saveLink(db, storeId, teamStoreId, now());
    const doc = docOf(teamStoreId);
    mirrorOwners(db, storeId, doc, null);
    adoptAnnotations(db, storeId, doc, actor());
    mirrorOnce(db, [{ storeId, teamStoreId }], docOf, now());
    connection?.open(teamStoreId, doc);
    publishPresence();
    void stayConnected();
  }

  const records = createTeamRecords({
    db,
    now,
    docOf,
    sharedDoc,
    actor,
    requireStore,
    writing,
    callOf: deps.callOf,
  });

  const reviews = createSharedReviews({
    db,
    docOf: (storeId) => {
      const link = linkOfStore(db, storeId);
      return link ? docOf(link.teamStoreId) : null;
    },
    sharedStores: () => links(db).map((link) => link.storeId),
    actor,
    writing,
  });

  const service: Services['team'] = {
    status: async () => status(),

    async join({ url, token }) {
      // The server says who the token belongs to, so a wrong one is refused before it is kept.
      const answer = await memberOf(deps.fetch, url, token);
      const previous = teamRow(db)?.tokenAccount;
      const account = newTokenAccount();
      await deps.secrets.set(account, token);
      saveJoin(db, url, answer.member, account, now());
      if (previous) await deps.secrets.delete(previous).catch(() => false);
      connection?.close();
      connection = null;
      await stayConnected();
      return status();
    },

    async leave() {
      connection?.close();
      connection = null;
      const account = teamRow(db)?.tokenAccount;
      if (account) await deps.secrets.delete(account);
      // The copies stay: a member who leaves keeps what the team had shared with them.
      if (teamRow(db)) saveLeave(db, now());
      return status();
    },

    async share({ storeId }) {
      requireStore(storeId);
      const team = teamRow(db);
      if (!team || team.leftAt !== null) throw notJoined();
      const existing = linkOfStore(db, storeId);
      if (existing) return { teamStoreId: existing.teamStoreId };
      const { teamStoreId } = await newTeamStore(deps.fetch, team.url, await tokenOrThrow());
      const doc = docOf(teamStoreId);
      // The store's notes so far become the team's: sharing loses nothing written before it.
      const who = actor();
      doc.transact(() => {
        initTeamDoc(doc);
        for (const [key, body] of notesFor(db, storeId)) {
          const testId = key.slice(key.indexOf('\u0000') + 1);
          try {
            if (noteOf(doc, testId).text === '') setTeamNote(doc, testId, body, who);
          } catch (error) {
            // A test id the layout cannot name stays a local note only.
            if (!(error instanceof TeamValueError)) throw error;
          }
        }
      });
      linkStore(storeId, teamStoreId);
      return { teamStoreId };
    },

    async link({ storeId, teamStoreId }) {
      requireStore(storeId);
      if (!teamRow(db)) throw notJoined();
      linkStore(storeId, teamStoreId);
      return { teamStoreId };
    },

    async unlink({ storeId }) {
      requireStore(storeId);
      const link = linkOfStore(db, storeId);
      if (!link) throw notShared(storeId);
      // Everything the views read is in the user file already (the mirrors): it stays, as local data.
      connection?.closeStore(link.teamStoreId);
      docs.get(link.teamStoreId)?.destroy();
      docs.delete(link.teamStoreId);
      dropLink(db, storeId);
      // The owners are the team's (a store not shared has none): "Mine" no longer lists them.
      copyOwners(db, storeId, new Map(), null);
      publishPresence();
      deps.onChanged?.(storeId, null);
      return { teamStoreId: link.teamStoreId };
    },

    async sync({ timeoutMs }) {
      const team = teamRow(db);
      if (!team || team.leftAt !== null) throw notJoined();
      const token = await tokenOrThrow();
      const ids = links(db).map((link) => link.teamStoreId);
      const own = connection === null;
      const line = connection ?? connect(team.url, token);
      try {
        await waitConverged(line, ids, team.url, timeoutMs);
      } finally {
        if (own) line.close();
      }
      for (const id of ids) converged(id);
      const at = now();
      saveExchange(db, at);
      return { stores: ids.length, lastExchangeAt: at };
    },

    async linkOffers({ storeId }) {
      const team = teamRow(db);
      if (!team || team.leftAt !== null) return { offers: [], unlinkedTeamStores: 0 };
      const token = await tokenOrThrow();
      return findLinkOffers({
        db,
        fetch: deps.fetch,
        url: team.url,
        token,
        storeId,
        timeoutMs: 10_000,
      });
    },

    setOpen: async ({ storeId }) => presence.setOpen(storeId),

    changes: async ({ storeId }) => {
      if (storeId !== null) requireStore(storeId);
      return { stores: reviews.changes(storeId) };
    },
    decisionStamps: async ({ storeId }) => (requireStore(storeId), decisions.stamps(storeId)),

    ...records.methods,
  };

  return {
    service,
    texts: records.texts,
    reviews,
    decisions,
    close() {
      watch?.stop();
      closed = true;
      connection?.close();
      connection = null;
      for (const doc of docs.values()) doc.destroy();
      docs.clear();
    },
  };
}
