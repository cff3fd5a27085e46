// The check every update from a member passes before the server applies it: size, well-formed, complete, and fitting the layout of src/shared/team.
//
// Yjs cannot take an update back, so the update is first applied to a copy of the document (a
// mirror kept beside each loaded document, so the cost is the update's, not the document's), the
// roots and keys it changed are checked against the layout, and only then does Hocuspocus apply it
// to the document itself. A refused update leaves the document as it was; the mirror, which took
// it, is thrown away and made again from the document on the next update.
import * as Y from 'yjs';
import { type ChangedRoots, checkTeamRoots } from '#shared/team/check';

/** The largest update a member may send; a larger one is refused with this figure in its message. */
export const MAX_UPDATE_BYTES = 5 * 1024 * 1024;

/** A refused update: `code` and `reason` are what the member's connection is closed with. */
export class UpdateRefused extends Error {
  override name = 'UpdateRefused';
  readonly code: number;
  readonly reason: string;
  constructor(kind: string, message: string) {
    super(message);
    this.code = 4400;
    // A WebSocket close reason holds at most 123 bytes; the full message goes as a stateless message too.
    this.reason = `${kind}: ${message}`.slice(0, 120);
  }
}

interface Mirror {
  doc: Y.Doc;
  /** Roots are found by identity; refilled from `doc.share` when a new root appears. */
  names: WeakMap<object, string>;
  usedAt: number;
}

/** A mirror unused this long is dropped (a document being edited keeps its own; the others cost no memory). */
const MIRROR_IDLE_MS = 30_000;

export class UpdateGuard {
  private readonly mirrors = new Map<string, Mirror>();
  private readonly listeners = new Map<string, { doc: Y.Doc; listener: (u: Uint8Array) => void }>();
  private readonly sweep = setInterval(() => {
    const now = performance.now();
    for (const [name, mirror] of this.mirrors) {
      if (now - mirror.usedAt > MIRROR_IDLE_MS) this.dropMirror(name);
    }
  }, MIRROR_IDLE_MS / 3);

  constructor() {
    this.sweep.unref();
  }

  close(): void {
    clearInterval(this.sweep);
    for (const name of [...this.listeners.keys()]) this.forget(name);
  }

  /** Follows a loaded document, so its mirror (when it has one) gets every update it gets. */
  follow(name: string, doc: Y.Doc): void {
    this.forget(name);
    const listener = (update: Uint8Array) => {
      const mirror = this.mirrors.get(name);
      if (!mirror) return;
      try {
        Y.applyUpdate(mirror.doc, update);
      } catch {
        this.dropMirror(name);
      }
    };
    doc.on('update', listener);
    this.listeners.set(name, { doc, listener });
  }

  forget(name: string): void {
    const followed = this.listeners.get(name);
    if (followed) followed.doc.off('update', followed.listener);
    this.listeners.delete(name);
    this.dropMirror(name);
  }

  /** Throws UpdateRefused unless `update` may be applied to `doc` (the loaded document `name`). */
  check(name: string, doc: Y.Doc, update: Uint8Array): void {
    if (update.byteLength > MAX_UPDATE_BYTES) {
      throw new UpdateRefused(
        'update-too-large',
        `An update of ${(update.byteLength / 2 ** 20).toFixed(1)} MiB is over the 5 MiB limit; it was refused.`,
      );
    }
    let decoded: ReturnType<typeof Y.decodeUpdate>;
    try {
      decoded = Y.decodeUpdate(update);
    } catch {
      throw new UpdateRefused('malformed-update', 'The update could not be read; it was refused.');
    }
    if (decoded.structs.length === 0 && decoded.ds.clients.size === 0) return; // nothing to change
    // An empty document (a new store, or a lost folder being filled again) needs no mirror kept:
    // its copy is checked on a document of its own and let go, so a refill holds no second copy.
    const temporary = !this.mirrors.has(name) && doc.store.clients.size === 0;
    const mirror = temporary ? this.newMirror(doc) : this.mirrorOf(name, doc);
    try {
      this.checkOn(name, mirror, update);
    } finally {
      if (temporary) mirror.doc.destroy();
    }
  }

  private checkOn(name: string, mirror: Mirror, update: Uint8Array): void {
    mirror.usedAt = performance.now();
    const changed: ChangedRoots = new Map();
    const collect = (transaction: Y.Transaction) => {
      for (const [type, keys] of transaction.changed) this.mark(mirror, type, keys, changed);
    };
    mirror.doc.on('afterTransaction', collect);
    try {
      Y.applyUpdate(mirror.doc, update);
    } catch {
      this.dropMirror(name);
      throw new UpdateRefused(
        'malformed-update',
        'The update could not be applied; it was refused.',
      );
    } finally {
      mirror.doc.off('afterTransaction', collect);
    }
    if (mirror.doc.store.pendingStructs !== null || mirror.doc.store.pendingDs !== null) {
      this.dropMirror(name);
      throw new UpdateRefused(
        'incomplete-update',
        'The update depends on changes the server does not have; it was refused.',
      );
    }
    const problems = checkTeamRoots(mirror.doc, changed);
    if (problems.length > 0) {
      this.dropMirror(name);
      const first = problems[0];
      const where = first
        ? `${first.root}${first.key ? ` ${first.key}` : ''} ${first.problem}`
        : '';
      throw new UpdateRefused(
        'not-in-layout',
        `The update does not fit the shared store's layout (${where}); it was refused.`,
      );
    }
  }

  private newMirror(doc: Y.Doc): Mirror {
    const mirror: Mirror = { doc: new Y.Doc({ gc: true }), names: new WeakMap(), usedAt: 0 };
    Y.applyUpdate(mirror.doc, Y.encodeStateAsUpdate(doc));
    return mirror;
  }

  private mirrorOf(name: string, doc: Y.Doc): Mirror {
    const existing = this.mirrors.get(name);
    if (existing) return existing;
    const mirror = this.newMirror(doc);
    this.mirrors.set(name, mirror);
    return mirror;
  }

  private dropMirror(name: string): void {
    this.mirrors.get(name)?.doc.destroy();
    this.mirrors.delete(name);
  }

  /** Records a changed type as its root and key; a change inside a nested type marks its root whole. */
  private mark(
    mirror: Mirror,
    type: { _item: Y.Item | null },
    keys: Set<string | null>,
    changed: ChangedRoots,
  ): void {
    let root: { _item: Y.Item | null } = type;
    let nested = false;
    while (root._item !== null) {
      const parent = root._item.parent;
      if (!(parent instanceof Y.AbstractType)) break;
      root = parent;
      nested = true;
    }
    let name = mirror.names.get(root);
    if (name === undefined) {
      for (const [key, shared] of mirror.doc.share) mirror.names.set(shared, key);
      name = mirror.names.get(root);
    }
    if (name === undefined) return;
    if (nested || changed.get(name) === null) {
      changed.set(name, null);
      return;
    }
    const set = changed.get(name) ?? new Set<string>();
    for (const key of keys) if (key !== null) set.add(key);
    changed.set(name, set);
  }

  /** How many documents hold a mirror now (for the figures of the bench). */
  get mirrorCount(): number {
    return this.mirrors.size;
  }
}
