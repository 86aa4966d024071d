import { afterEach, describe, expect, it } from 'vitest';
import {
  COIN,
  mine,
  openTempChain,
  payFromDev,
  type TempChain,
  testWallet,
} from '../../testing/temp-chain';
import type { ChainCore } from '../chain-core';

// getBlockInfo over many blocks at once (a JSON-RPC batch runs its calls together): each call may
// hold its decoded block only until it answers. When the reward was read after the block, every
// call of a batch held its decoded block across that read, and a batch of 100 blocks of 10,000
// operations took the node past its heap budget (issue 44, the burst bench).

const BLOCKS = 12;

describe('getBlockInfo of many blocks the cache does not hold, at once', () => {
  const temps: TempChain[] = [];
  afterEach(async () => {
    for (const temp of temps.splice(0)) await temp.cleanup();
  });

  it('holds one decoded block at a time, and answers as one call at a time would', async () => {
    // The cache keeps only the newest block: every other block is read and decoded.
    const temp = await openTempChain({ blockCacheOperations: 1 });
    temps.push(temp);
    const { chain } = temp;
    for (let b = 0; b < BLOCKS; b++) {
      for (let i = 0; i < 3; i++) {
        await payFromDev(chain, testWallet(`batch receiver ${b}-${i}`).address, COIN);
      }
      await mine(chain);
    }
    const heights = Array.from({ length: BLOCKS }, (_, i) => i + 1);
    const oneAtATime = [];
    for (const height of heights) oneAtATime.push(await chain.blockInfo(height));

    // Decoded blocks whose call has not answered yet, counted when each is decoded (cached).
    const cache = (chain as unknown as ChainCore).blockCache;
    const set = cache.set.bind(cache);
    const held = new Set<number>();
    let decoded = 0;
    let mostHeld = 0;
    cache.set = (height, loaded) => {
      decoded++;
      held.add(height);
      mostHeld = Math.max(mostHeld, held.size);
      set(height, loaded);
    };
    const together = await Promise.all(
      heights.map((height) =>
        chain.blockInfo(height).then((info) => {
          held.delete(height);
          return info;
        }),
      ),
    );

    expect(decoded).toBeGreaterThanOrEqual(BLOCKS - 1);
    expect(mostHeld).toBe(1);
    expect(together).toEqual(oneAtATime);
    expect(together.map((info) => info.operations)).toEqual(heights.map(() => 3));
  });
});
