import { describe, expect, it } from 'vitest';
import { decodeAccount, encodeAccount } from './account';
import { StateLayer } from './state-layer';

/** A distinct hash per seed: the seed's four bytes, then a pattern. */
const hashOf = (seed: number) =>
  Uint8Array.from({ length: 20 }, (_, i) => (i < 4 ? seed >>> (8 * i) : seed * 31 + i) & 0xff);

describe('account hashes in the state (memory per account)', () => {
  it('keeps a copy of each new account hash in a shared slab, found again by equal bytes', () => {
    const root = new StateLayer();
    const input = hashOf(1);
    const account = root.createAccount(input);
    const second = root.createAccount(hashOf(2));
    input.fill(0);
    expect(account.hash160).toEqual(hashOf(1));
    // Views into one larger buffer, not a 20-byte buffer each.
    expect(account.hash160.buffer.byteLength).toBeGreaterThan(20);
    expect(second.hash160.buffer).toBe(account.hash160.buffer);
    expect(root.numberOf(hashOf(1))).toBe(account.number);
    expect(root.numberOf(hashOf(2))).toBe(second.number);
    expect(root.numberOf(hashOf(3))).toBeUndefined();
    expect(root.child().numberOf(Uint8Array.from(hashOf(2)))).toBe(second.number);
  });

  it('decodes an account hash into the slab, not as a view of the stored bytes', () => {
    const root = new StateLayer();
    const original = root.createAccount(hashOf(7));
    original.balance = 123n;
    const bytes = encodeAccount(original);
    const decoded = decodeAccount(original.number, bytes);
    bytes.fill(0);
    expect(decoded.hash160).toEqual(hashOf(7));
    expect(decoded.hash160.buffer.byteLength).toBeGreaterThan(20);
    expect(decoded.hash160.buffer).not.toBe(bytes.buffer);
    expect(decoded.balance).toBe(123n);
  });

  it('starts a new slab when one is full, every hash intact', () => {
    const root = new StateLayer();
    const accounts = Array.from({ length: 3_000 }, (_, i) => root.createAccount(hashOf(i)));
    accounts.forEach((account, i) => {
      expect(account.hash160).toEqual(hashOf(i));
      expect(root.numberOf(hashOf(i))).toBe(i);
    });
    expect(new Set(accounts.map((a) => a.hash160.buffer)).size).toBeGreaterThan(1);
  });
});
