import { describe, expect, it } from 'vitest';
import { createKeyCache } from './key-cache';

const owner = (id: string, address: string | null = null) => ({ id, address });

describe('createKeyCache', () => {
  it('releases a copy of the key only to the passphrase it was remembered with', () => {
    const cache = createKeyCache();
    const key = new Uint8Array(32).fill(7);
    cache.remember(owner('a'), key, 'right');
    key.fill(0); // the cache holds its own copy
    const recalled = cache.recall('a', 'right');
    expect(recalled).toEqual(new Uint8Array(32).fill(7));
    recalled!.fill(1); // and hands out copies
    expect(cache.recall('a', 'right')).toEqual(new Uint8Array(32).fill(7));
    expect(cache.recall('a', 'wrong')).toBeUndefined();
    expect(cache.recall('a', 'right ')).toBeUndefined();
    expect(cache.recall('b', 'right')).toBeUndefined();
  });

  it('wipes on forget and clear', () => {
    const cache = createKeyCache();
    cache.remember(owner('a'), new Uint8Array(32).fill(1), 'p');
    cache.remember(owner('b'), new Uint8Array(32).fill(2), 'p');
    cache.forget('a');
    expect(cache.recall('a', 'p')).toBeUndefined();
    expect(cache.recall('b', 'p')).toBeDefined();
    cache.clear();
    expect(cache.recall('b', 'p')).toBeUndefined();
  });

  it('replaces the passphrase on a second remember', () => {
    const cache = createKeyCache();
    cache.remember(owner('a'), new Uint8Array(32).fill(1), 'old');
    cache.remember(owner('a'), new Uint8Array(32).fill(1), 'new');
    expect(cache.recall('a', 'old')).toBeUndefined();
    expect(cache.recall('a', 'new')).toBeDefined();
  });

  it('wipes a key by its chain address, and only that key', () => {
    const cache = createKeyCache();
    const key = new Uint8Array(32).fill(3);
    cache.remember(owner('0xa', 'CHAINa'), key, 'p');
    cache.remember(owner('0xb', 'CHAINb'), key, 'p');
    cache.remember(owner('?file'), key, 'p');
    cache.forgetWallet('CHAINa');
    expect(cache.holds('0xa')).toBe(false);
    expect(cache.holds('0xb')).toBe(true);
    cache.forgetWallet('CHAINc');
    expect(cache.holds('0xb')).toBe(true);
    expect(cache.holds('?file')).toBe(true);
    // Forgotten by its identity, then remembered again: its address finds it again.
    cache.forget('0xb');
    cache.remember(owner('0xb', 'CHAINb'), key, 'q');
    cache.forgetWallet('CHAINb');
    expect(cache.recall('0xb', 'q')).toBeUndefined();
  });
});
