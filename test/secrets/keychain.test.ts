// The OS keychain through keytar: a real GNOME Keyring (see scripts/with-keyring.mjs) and the no-keychain path.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createKeychainSecretStore,
  createMemorySecretStore,
  keychainProblem,
} from '#core/secrets/index';
import { createKeyRing } from '#core/stores/keys';
import { ProblemError } from '#shared/problem';

const realKeyring = process.env.SPLITBOOK_TEST_KEYRING === '1';

describe.skipIf(!realKeyring)('keychain (real GNOME Keyring over D-Bus)', () => {
  const store = createKeychainSecretStore({ service: 'Splitbook-test' });

  it('passes its self-test', async () => {
    expect(await store.selfTest()).toEqual({ available: true, message: null });
  });

  it('sets, reads, replaces and deletes a key', async () => {
    const account = randomUUID();
    expect(await store.get(account)).toBeNull();
    await store.set(account, 'sk_first');
    expect(await store.get(account)).toBe('sk_first');
    await store.set(account, 'sk_second');
    expect(await store.get(account)).toBe('sk_second');
    expect(await store.delete(account)).toBe(true);
    expect(await store.get(account)).toBeNull();
    expect(await store.delete(account)).toBe(false);
  });

  it('keeps a session-only key out of the keychain', async () => {
    const account = randomUUID();
    const ring = createKeyRing(store, createMemorySecretStore());
    await ring.save(account, 'sk_keychain', false);
    expect(await store.get(account)).toBe('sk_keychain');
    await ring.save(account, 'sk_session', true);
    expect(await store.get(account)).toBeNull();
    expect(await ring.get(account, 'Acme')).toBe('sk_session');
    await ring.forget(account, false);
  });
});

describe.skipIf(!realKeyring)('a locked keychain (real GNOME Keyring, locked over D-Bus)', () => {
  it('says the keychain is locked, instead of failing obscurely or hanging', () => {
    // Its own private keyring, so locking it cannot disturb the other tests' keyring.
    const out = execFileSync(
      process.execPath,
      [
        'scripts/with-keyring.mjs',
        process.execPath,
        '--import',
        'tsx',
        'test/secrets/fixtures/locked-keychain.ts',
      ],
      { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const report = JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
    expect(report.set).toMatchObject({ ok: false, problem: { title: 'The keychain is locked' } });
    expect(report.selfTest.available).toBe(false);
    expect(report.selfTest.message).toMatch(/locked/);
  });
});

describe.skipIf(!realKeyring)(
  'a store whose key is in a locked keychain (issue 46, item 9)',
  () => {
    it('is told "The keychain is locked", not "No API key", and its background syncs are not stopped', () => {
      // Its own private keyring, locked over D-Bus after the store's key was kept in it and synced with.
      const out = execFileSync(
        process.execPath,
        [
          'scripts/with-keyring.mjs',
          process.execPath,
          '--import',
          'tsx',
          'test/secrets/fixtures/locked-child.ts',
        ],
        { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const report = JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
      expect(report.firstSync).toBe('ok');
      // Unlocked, a key that is not there is simply missing.
      expect(report.missingWhileUnlocked).toEqual({ value: null });
      // Locked, libsecret answers the lookup as "no such item"; Splitbook tells them apart.
      expect(report.keyWhileLocked).toEqual({ problem: 'The keychain is locked' });
      expect(report.lockedSync).toEqual({ outcome: 'error', problem: 'The keychain is locked' });
      // The store says so, and only backs off: its next background sync (once unlocked) is still planned.
      expect(report.store).toMatchObject({
        lastProblem: 'The keychain is locked',
        stopped: null,
        failures: 1,
      });
    }, 90_000);
  },
);

describe('no keychain', () => {
  it('names the missing Secret Service when D-Bus is not there (real keytar, no session bus)', () => {
    // keytar, in a process with no D-Bus session and no display, fails the way it does on a bare Linux box.
    const script = `
      const k = require('keytar');
      k.getPassword('Splitbook-test', 'x').then(() => console.log('OK'), (e) => console.log(e.message));
    `;
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
    const message = execFileSync(process.execPath, ['-e', script], {
      env,
      encoding: 'utf8',
    }).trim();
    if (message === 'OK') return; // a keychain reachable without D-Bus (macOS, Windows): nothing to check
    const p = keychainProblem(new Error(message)).problem;
    expect(p.title).toBe('No keychain available');
    expect(p.detail).toContain('Secret Service');
    expect(p.detail).toContain('this session only');
  });

  it('turns every keychain failure into a ProblemError and a failed self-test, never a crash', async () => {
    const broken = createKeychainSecretStore({
      load: async () => {
        throw new Error('The name org.freedesktop.secrets was not provided by any .service files');
      },
    });
    await expect(broken.get('a')).rejects.toBeInstanceOf(ProblemError);
    await expect(broken.set('a', 'secret')).rejects.toMatchObject({
      problem: { title: 'No keychain available' },
    });
    const status = await broken.selfTest();
    expect(status.available).toBe(false);
    expect(status.message).toMatch(/No keychain available/);
  });

  it('says when the keychain is locked', () => {
    expect(
      keychainProblem(new Error('Cannot create an item in a locked collection')).problem.title,
    ).toBe('The keychain is locked');
  });

  it('asks for the key again when a session-only key is gone', async () => {
    const ring = createKeyRing(createMemorySecretStore(), createMemorySecretStore());
    await expect(ring.get('store-1', 'Acme')).rejects.toMatchObject({
      problem: { status: 401, title: 'No API key for this store' },
    });
  });
});
