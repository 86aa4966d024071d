import { describe, expect, it } from 'vitest';
import { createKeyCache } from './key-cache';

describe('createKeyCache', () => {
  it('releases a copy of the key only to the passphrase it was remembered with', () => {
    const cache = createKeyCache();
    const key = new Uint8Array(32).fill(7);
    cache.remember('a', key, 'right');
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
    cache.remember('a', new Uint8Array(32).fill(1), 'p');
    cache.remember('b', new Uint8Array(32).fill(2), 'p');
    cache.forget('a');
    expect(cache.recall('a', 'p')).toBeUndefined();
    expect(cache.recall('b', 'p')).toBeDefined();
    cache.clear();
    expect(cache.recall('b', 'p')).toBeUndefined();
  });

  it('replaces the passphrase on a second remember', () => {
    const cache = createKeyCache();
    cache.remember('a', new Uint8Array(32).fill(1), 'old');
    cache.remember('a', new Uint8Array(32).fill(1), 'new');
    expect(cache.recall('a', 'old')).toBeUndefined();
    expect(cache.recall('a', 'new')).toBeDefined();
  });
});
