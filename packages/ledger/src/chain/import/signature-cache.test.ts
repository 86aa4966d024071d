import { describe, expect, it } from 'vitest';
import { SignatureCache } from './signature-cache';

const key = Uint8Array.of(2, 1, 2, 3);

describe('SignatureCache', () => {
  it("forgets a block's entries once it is settleDepth deep, not those still pending", () => {
    const cache = new SignatureCache(1_000, 2);
    for (const digest of ['a', 'b', 'c', 'pending']) cache.add(digest, key);
    cache.mined(5, ['a', 'b']);
    cache.mined(6, ['c']);
    expect(cache.has('a', key)).toBe(true);
    cache.mined(7, []);
    expect([cache.has('a', key), cache.has('b', key)]).toEqual([false, false]);
    expect([cache.has('c', key), cache.has('pending', key)]).toEqual([true, true]);
    cache.mined(8, []);
    expect([cache.has('c', key), cache.has('pending', key)]).toEqual([false, true]);
  });

  it('keeps the entries of a rolled-back block when another block is committed at its height', () => {
    const cache = new SignatureCache(1_000, 1);
    for (const digest of ['returned', 'other']) cache.add(digest, key);
    cache.mined(3, ['returned']);
    // Rolled back: 'returned' is pending again; another block takes height 3, then one after it.
    cache.mined(3, ['other']);
    cache.mined(4, []);
    expect(cache.has('returned', key)).toBe(true);
    expect(cache.has('other', key)).toBe(false);
  });
});
