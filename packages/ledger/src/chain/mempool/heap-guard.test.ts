import { afterEach, describe, expect, it } from 'vitest';
import {
  COIN,
  openTempChain,
  payFromDev,
  type TempChain,
  testWallet,
} from '../../testing/temp-chain';
import type { ChainCore } from '../chain-core';
import { HEAP_REFUSE_SHARE, HeapGuard } from './heap-guard';

describe('HeapGuard', () => {
  it('finds the heap short past its share of the limit, reading it at most every 50 ms', () => {
    let used = 0;
    let clock = 0;
    let shrunk = 0;
    const guard = new HeapGuard(
      () => shrunk++,
      undefined,
      () => ({ used_heap_size: used, heap_size_limit: 1000 }),
      () => clock,
    );
    expect(guard.isShort()).toBe(false);
    used = HEAP_REFUSE_SHARE * 1000 + 1;
    clock = 10;
    expect(guard.isShort()).toBe(false); // not read again yet
    clock = 60;
    expect(guard.isShort()).toBe(true);
    expect(shrunk).toBe(1);
    used = 100;
    clock = 120;
    expect(guard.isShort()).toBe(false);
    expect(guard.shortages).toBe(1);
  });

  it('measures against the old generation limit given, not the larger limit V8 adds the young one to', () => {
    const stats = { used_heap_size: 0, heap_size_limit: 264 };
    let clock = 0;
    const guard = new HeapGuard(
      () => {},
      240,
      () => stats,
      () => (clock += 100),
    );
    stats.used_heap_size = HEAP_REFUSE_SHARE * 240 - 1;
    expect(guard.isShort()).toBe(false);
    // Past the share of 240, though still under the share of 264.
    stats.used_heap_size = HEAP_REFUSE_SHARE * 240 + 1;
    expect(guard.isShort()).toBe(true);
    // A limit above V8's counts for V8's.
    const loose = new HeapGuard(
      () => {},
      10_000,
      () => stats,
      () => (clock += 100),
    );
    stats.used_heap_size = HEAP_REFUSE_SHARE * 264 + 1;
    expect(loose.isShort()).toBe(true);
  });
});

describe('admission when the heap is short', () => {
  let temp: TempChain | undefined;
  afterEach(async () => {
    await temp?.cleanup();
    temp = undefined;
  });

  it('refuses new operations with MEMPOOL_FULL, and takes them again once there is room', async () => {
    temp = await openTempChain();
    const core = temp.chain as unknown as ChainCore;
    let short = true;
    core.heapGuard.isShort = () => short;
    await expect(payFromDev(temp.chain, testWallet('a').address, COIN)).rejects.toMatchObject({
      reason: 'MEMPOOL_FULL',
    });
    short = false;
    await expect(payFromDev(temp.chain, testWallet('a').address, COIN)).resolves.toBeDefined();
  });
});
