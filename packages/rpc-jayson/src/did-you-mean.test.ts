import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from './did-you-mean.js';

describe('did you mean', () => {
  it('computes Levenshtein distance (hand-checked values)', () => {
    // kitten -> sitting: substitute k/s, e/i, insert g = 3 (the textbook example).
    expect(editDistance('kitten', 'sitting', 5)).toBe(3);
    expect(editDistance('', 'abc', 5)).toBe(3);
    expect(editDistance('flaw', 'lawn', 5)).toBe(2);
    expect(editDistance('same', 'same', 0)).toBe(0);
    // Beyond the limit it gives up with limit + 1.
    expect(editDistance('kitten', 'sitting', 2)).toBe(3);
  });

  const names = ['getBlockCount', 'getBlockInfo', 'sendTo', 'sendToken'];

  it('prefers the same name in another case', () => {
    expect(didYouMean('getblockcount', names)).toBe('getBlockCount');
    expect(didYouMean('SENDTO', names)).toBe('sendTo');
  });

  it('finds a name within distance 2, the closest first', () => {
    expect(didYouMean('getBlockCnt', names)).toBe('getBlockCount');
    expect(didYouMean('sendTk', names)).toBe('sendTo');
  });

  it('stays silent when nothing is close', () => {
    expect(didYouMean('transfer', names)).toBeUndefined();
    expect(didYouMean('', names)).toBeUndefined();
    expect(didYouMean('x'.repeat(10_000), names)).toBeUndefined();
  });
});
