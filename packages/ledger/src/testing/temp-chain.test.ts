import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  COIN,
  devWallet,
  fundAndActivate,
  makeTempDir,
  namespacedWallet,
  openTempChain,
  testWallet,
} from './temp-chain';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('test wallets', () => {
  // The packages' tests name their keys by label; these keys must not change when the helper moves.
  it('derive the key as sha256 of "<namespace> test wallet <label>"', () => {
    for (const [namespace, label] of [
      ['tokens', 'issuer'],
      ['tiers', 'top'],
      ['ledger', 'alice'],
    ] as const) {
      const expected = createHash('sha256').update(`${namespace} test wallet ${label}`).digest();
      expect(namespacedWallet(namespace, label).privateKey).toEqual(new Uint8Array(expected));
    }
    expect(testWallet('alice')).toEqual(namespacedWallet('ledger', 'alice'));
  });
});

describe('openTempChain', () => {
  it('removes the temp dir it made, but not a dataDir it was given', async () => {
    const own = await openTempChain();
    await own.cleanup();
    expect(existsSync(own.dir)).toBe(false);

    const given = await makeTempDir();
    cleanups.push(given.remove);
    const t = await openTempChain({ dataDir: given.dir });
    expect(t.dir).toBe(given.dir);
    await t.cleanup();
    expect(existsSync(given.dir)).toBe(true);
  });

  it('funds and activates one wallet or several in one block', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const [a, b, c] = ['fund a', 'fund b', 'fund c'].map((label) => testWallet(label));
    await fundAndActivate(t.chain, a!, 3n * COIN);
    await fundAndActivate(t.chain, [b!, c!], 2n * COIN);
    expect(t.chain.head().height).toBe(2);
    for (const [wallet, balance] of [
      [a!, 3n * COIN],
      [b!, 2n * COIN],
      [c!, 2n * COIN],
    ] as const) {
      const account = t.chain.accountByAddress(wallet.address)!;
      expect(account.active).toBe(true);
      // Activation pays the act price as its fee (or nothing, once per block): at most what was sent.
      expect(account.balance).toBeLessThanOrEqual(balance);
      expect(account.balance).toBeGreaterThan(balance - COIN);
    }
    expect(devWallet.address).toBe(t.chain.accountByNumber(0)!.address);
  });
});
