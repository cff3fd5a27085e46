// Where API keys live: the OS keychain through keytar, or this session's memory when the user chooses so.
import { problem, ProblemError } from '#shared/problem';

export const KEYCHAIN_SERVICE = 'Splitbook';

export interface KeychainStatus {
  available: boolean;
  /** Why the keychain cannot be used, in words a user can act on; null when it works. */
  message: string | null;
}

/** A store of secrets by account (the store's id). Implementations never log or echo a secret. */
export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
  /** Writes, reads back and deletes a probe entry; never throws. */
  selfTest(): Promise<KeychainStatus>;
}

/** The subset of keytar this module uses, so a test or another backend can stand in. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** Turns a keychain failure into a message naming the cause and what the user can do. */
export function keychainProblem(error: unknown): ProblemError {
  const raw = error instanceof Error ? error.message : String(error);
  const cause = describeKeychainError(raw);
  return problem(
    'keychain',
    503,
    cause.title,
    `${cause.detail} You can keep the key in memory for this session only; it is never written to disk in plain text.`,
  );
}

function describeKeychainError(message: string): { title: string; detail: string } {
  if (
    /org\.freedesktop\.secrets|Secret Service|autolaunch D-Bus|DBUS_SESSION_BUS_ADDRESS|D-Bus/i.test(
      message,
    )
  ) {
    return {
      title: 'No keychain available',
      detail:
        'Splitbook keeps API keys in the OS keychain; on Linux that is a Secret Service such as GNOME Keyring or KWallet, and none is running in this session.',
    };
  }
  if (/locked|unlock|prompt (was )?dismissed|user canceled|cancelled/i.test(message)) {
    return {
      title: 'The keychain is locked',
      detail: 'Unlock your keychain (or log in again) and retry.',
    };
  }
  if (
    /Cannot find module|keytar|was compiled against|NODE_MODULE_VERSION|invalid ELF/i.test(message)
  ) {
    return {
      title: 'Keychain support is not installed',
      detail: 'The keychain module of this Splitbook build could not be loaded.',
    };
  }
  return {
    title: 'The keychain refused the request',
    detail: `The OS keychain answered: ${message}.`,
  };
}

/** The OS keychain via keytar. keytar is loaded lazily so a missing native module is a clear error, not a crash. */
export function createKeychainSecretStore(
  options: {
    service?: string;
    load?: () => Promise<KeytarLike>;
  } = {},
): SecretStore {
  const service = options.service ?? KEYCHAIN_SERVICE;
  const load = options.load ?? loadKeytar;
  let keytar: Promise<KeytarLike> | null = null;
  /**
   * One keychain talk at a time: a lookup made while the start-up self-test wrote and deleted its
   * probe entry came back empty now and then (GNOME Keyring, a CLI sync right after start), which
   * read as "no API key". Each call waits for the one before it.
   */
  let queue: Promise<unknown> = Promise.resolve();

  function withKeytar<T>(run: (k: KeytarLike) => Promise<T>): Promise<T> {
    const next = queue.then(async () => {
      try {
        keytar ??= load();
        return await run(await keytar);
      } catch (error) {
        if (error instanceof ProblemError) throw error;
        throw keychainProblem(error);
      }
    });
    queue = next.catch(() => undefined);
    return next;
  }

  return {
    get: (account) =>
      withKeytar(async (k) => {
        const secret = await k.getPassword(service, account);
        if (secret !== null) return secret;
        // libsecret answers a lookup in a locked collection as "no such item" (GNOME Keyring with no
        // prompt at hand). A locked collection refuses a write, so one tells a locked keychain from a
        // missing key: the first throws (keychainProblem says "The keychain is locked"), the second is null.
        const probe = `lock-probe-${process.pid}-${Date.now()}`;
        await k.setPassword(service, probe, 'probe');
        await k.deletePassword(service, probe);
        return null;
      }),
    set: (account, secret) => withKeytar((k) => k.setPassword(service, account, secret)),
    delete: (account) => withKeytar((k) => k.deletePassword(service, account)),
    async selfTest() {
      const probe = `self-test-${process.pid}-${Date.now()}`;
      try {
        await withKeytar(async (k) => {
          await k.setPassword(service, probe, 'probe');
          const back = await k.getPassword(service, probe);
          await k.deletePassword(service, probe);
          if (back !== 'probe') throw new Error('the keychain did not return what was stored');
        });
        return { available: true, message: null };
      } catch (error) {
        const p = error instanceof ProblemError ? error.problem : keychainProblem(error).problem;
        return { available: false, message: `${p.title}. ${p.detail}` };
      }
    },
  };
}

async function loadKeytar(): Promise<KeytarLike> {
  const mod: { default?: KeytarLike } & Partial<KeytarLike> = await import('keytar');
  const k = mod.default ?? mod;
  if (!k.getPassword || !k.setPassword || !k.deletePassword)
    throw new Error('keytar module has no password API');
  return {
    getPassword: k.getPassword,
    setPassword: k.setPassword,
    deletePassword: k.deletePassword,
  };
}

/** Keys held in this process's memory only: the honest fallback when no keychain is usable. */
export function createMemorySecretStore(): SecretStore {
  const secrets = new Map<string, string>();
  return {
    get: async (account) => secrets.get(account) ?? null,
    set: async (account, secret) => {
      secrets.set(account, secret);
    },
    delete: async (account) => secrets.delete(account),
    selfTest: async () => ({ available: true, message: null }),
  };
}
