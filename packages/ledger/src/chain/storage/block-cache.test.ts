import { afterEach, describe, expect, it, vi } from 'vitest';
import { mine, openTempChain, payFromDev, testWallet } from '../../testing/temp-chain';
import { ChainStore } from './store';

const receiver = testWallet('block-cache receiver');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A chain with three blocks of two transfers each: 1 and 2 units in block 1, 3 and 4 in 2, 5 and 6 in 3. */
async function chainOfThreeBlocks(blockCacheOperations?: number) {
  const temp = await openTempChain(
    blockCacheOperations === undefined ? {} : { blockCacheOperations },
  );
  cleanups.push(temp.cleanup);
  for (let block = 0; block < 3; block++) {
    await payFromDev(temp.chain, receiver.address, BigInt(2 * block + 1));
    await payFromDev(temp.chain, receiver.address, BigInt(2 * block + 2));
    await mine(temp.chain);
  }
  return temp.chain;
}

/** Reads each block's operations; returns their amounts and how many database reads it took. */
async function readBlocks(chain: Awaited<ReturnType<typeof chainOfThreeBlocks>>) {
  const reads = vi.spyOn(ChainStore.prototype, 'read');
  const amounts: string[][] = [];
  for (const height of [3, 2, 1]) {
    amounts.push((await chain.blockOperations(height)).map((op) => op.amount));
  }
  const count = reads.mock.calls.length;
  reads.mockRestore();
  return { amounts, reads: count };
}

describe('the decoded-block cache', () => {
  it('keeps recent blocks decoded, so reading them costs no database read', async () => {
    const chain = await chainOfThreeBlocks();
    const { amounts, reads } = await readBlocks(chain);
    expect(reads).toBe(0);
    expect(amounts).toEqual([
      ['5', '6'],
      ['3', '4'],
      ['1', '2'],
    ]);
  });

  it('holds at most blockCacheOperations operations, the newest block whatever its size', async () => {
    // Three operations' room: only the newest block (two) stays; the others come from the store.
    const chain = await chainOfThreeBlocks(3);
    const { amounts, reads } = await readBlocks(chain);
    expect(reads).toBe(2);
    expect(amounts).toEqual([
      ['5', '6'],
      ['3', '4'],
      ['1', '2'],
    ]);
    // Even a block larger than the bound is kept while it is the newest one read.
    const tiny = await chainOfThreeBlocks(1);
    expect((await readBlocks(tiny)).reads).toBe(2);
  });
});
