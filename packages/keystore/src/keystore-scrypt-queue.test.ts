import { describe, expect, it, vi } from 'vitest';
import { devAddressOf, rejectionOf, useTempDirs } from '../test/fixtures';
import { createKeyStore } from './keystore';

/** Observes every real scrypt run: how many run at once, per salt (one salt = one key file). */
const observed = vi.hoisted(() => ({
  inFlight: new Map<string, number>(),
  maxPerSalt: 0,
  maxTotal: 0,
  calls: 0,
  syncCalls: 0,
  reset() {
    this.maxPerSalt = 0;
    this.maxTotal = 0;
    this.calls = 0;
    this.syncCalls = 0;
  },
}));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const total = () => [...observed.inFlight.values()].reduce((a, b) => a + b, 0);
  const scrypt = (...args: unknown[]) => {
    const salt = Buffer.from(args[1] as Uint8Array).toString('hex');
    const callback = args[args.length - 1] as (error: Error | null, key: Buffer) => void;
    observed.calls++;
    observed.inFlight.set(salt, (observed.inFlight.get(salt) ?? 0) + 1);
    observed.maxPerSalt = Math.max(observed.maxPerSalt, observed.inFlight.get(salt)!);
    observed.maxTotal = Math.max(observed.maxTotal, total());
    const done = (error: Error | null, key: Buffer) => {
      observed.inFlight.set(salt, observed.inFlight.get(salt)! - 1);
      callback(error, key);
    };
    return (actual.scrypt as (...a: unknown[]) => void)(...args.slice(0, -1), done);
  };
  const scryptSync = (...args: unknown[]) => {
    observed.syncCalls++;
    return (actual.scryptSync as (...a: unknown[]) => Buffer)(...args);
  };
  return { ...actual, default: { ...actual, scrypt, scryptSync }, scrypt, scryptSync };
});

const newDir = useTempDirs();

describe('scrypt scheduling', () => {
  it('runs at most one scrypt per client (its others queue), clients in parallel, never sync', async () => {
    const store = createKeyStore({
      dir: await newDir(),
      addressOf: devAddressOf,
      scrypt: { N: 2 ** 14, r: 8, p: 1 },
    });
    await store.open();
    const a = await store.create('a');
    const b = await store.create('b');
    observed.reset();

    // Client 10.0.0.1 guesses at both wallets, 10.0.0.2 at one of them.
    const attempts = [
      [a, '10.0.0.1'],
      [b, '10.0.0.1'],
      [a, '10.0.0.1'],
      [a, '10.0.0.2'],
      [a, '10.0.0.2'],
      [b, '10.0.0.1'],
    ].map(([address, client], i) =>
      rejectionOf(store.getPrivateKey(address!, `wrong ${i}`, { client: client! })),
    );
    const reasons = (await Promise.all(attempts)).map((error) => error.reason);
    expect(reasons).toEqual(Array(6).fill('WRONG_PASSPHRASE'));
    expect(observed.calls).toBe(6);
    // Two derivations at once at most, one per client: 10.0.0.1 never ran two, even on two
    // wallets, while the two clients' checks of wallet a did overlap.
    expect(observed.maxTotal).toBe(2);
    expect(observed.syncCalls).toBe(0);
    await store.close();
  });

  it('one client alone runs one scrypt at a time, whatever the wallets', async () => {
    const store = createKeyStore({
      dir: await newDir(),
      addressOf: devAddressOf,
      scrypt: { N: 2 ** 14, r: 8, p: 1 },
    });
    await store.open();
    const wallets = [await store.create('a'), await store.create('b'), await store.create('c')];
    observed.reset();
    const attempts = wallets.map((address, i) =>
      rejectionOf(store.getPrivateKey(address, `wrong ${i}`, { client: '10.0.0.9' })),
    );
    expect((await Promise.all(attempts)).map((error) => error.reason)).toEqual(
      Array(3).fill('WRONG_PASSPHRASE'),
    );
    expect(observed.calls).toBe(3);
    expect(observed.maxTotal).toBe(1);
    await store.close();
  });
});
