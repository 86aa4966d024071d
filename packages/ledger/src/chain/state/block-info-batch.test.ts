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
// operations took the node past its heap budget (issue 44, the burst bench); decoded back to back
// in one turn, the same batch held the event loop 5.5 s.

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

  it('decodes one block per turn of the event loop, so that I/O and timers run between them', async () => {
    const temp = await openTempChain({ blockCacheOperations: 1 });
    temps.push(temp);
    const { chain } = temp;
    for (let b = 0; b < BLOCKS; b++) {
      await payFromDev(chain, testWallet(`turn receiver ${b}`).address, COIN);
      await mine(chain);
    }
    // A turn counter moved by a callback of its own each time the loop comes round.
    let turn = 0;
    let ticking = true;
    const tick = (): void => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const cache = (chain as unknown as ChainCore).blockCache;
    const set = cache.set.bind(cache);
    const turnsOfDecodes: number[] = [];
    cache.set = (height, loaded) => {
      turnsOfDecodes.push(turn);
      set(height, loaded);
    };
    const heights = Array.from({ length: BLOCKS - 1 }, (_, i) => i + 1);
    await Promise.all(heights.map((height) => chain.blockInfo(height)));
    ticking = false;

    expect(turnsOfDecodes.length).toBe(heights.length);
    for (let i = 1; i < turnsOfDecodes.length; i++) {
      expect(turnsOfDecodes[i]).toBeGreaterThan(turnsOfDecodes[i - 1]!);
    }
  });
});
