import { afterEach, describe, expect, it } from 'vitest';
import {
  importQueued,
  openTempChain,
  produceTransferBlocks,
  type TempChain,
  testWallet,
} from '../../testing/temp-chain';

const chains: TempChain[] = [];
afterEach(async () => {
  while (chains.length > 0) await chains.pop()!.cleanup();
});

async function chainWith(blocks: number): Promise<TempChain> {
  const t = await openTempChain();
  chains.push(t);
  await produceTransferBlocks(t.chain, blocks, testWallet('range-receiver').address);
  return t;
}

async function singleReads(t: TempChain, from: number, to: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let h = from; h <= to; h++) out.push((await t.chain.getBlockBytes(h))!);
  return out;
}

describe('getBlockRange', () => {
  it('reads the blocks of a range in order, as far as the head', async () => {
    const t = await chainWith(12);
    expect(await t.chain.getBlockRange(3, 9)).toEqual(await singleReads(t, 3, 9));
    expect(await t.chain.getBlockRange(10, 500)).toEqual(await singleReads(t, 10, 12));
    expect(await t.chain.getBlockRange(0, 0)).toEqual(await singleReads(t, 0, 0));
    expect(await t.chain.getBlockRange(13, 20)).toEqual([]);
    expect(await t.chain.getBlockRange(5, 4)).toEqual([]);
  });

  it('stops before the block that would pass maxBytes, but always gives the first', async () => {
    const t = await chainWith(6);
    const all = await singleReads(t, 1, 6);
    const twoAndABit = all[0]!.length + all[1]!.length + 1;
    expect(await t.chain.getBlockRange(1, 6, twoAndABit)).toEqual(all.slice(0, 2));
    expect(await t.chain.getBlockRange(1, 6, 1)).toEqual(all.slice(0, 1));
  });

  it('finds blocks still being written behind', async () => {
    const source = await chainWith(40);
    const blocks = await singleReads(source, 1, 40);
    const target = await openTempChain();
    chains.push(target);
    const ranges: Promise<Uint8Array[]>[] = [];
    target.chain.onBlock((info) => ranges.push(target.chain.getBlockRange(1, info.block)));
    await importQueued(target.chain, blocks);
    const read = await Promise.all(ranges);
    for (const [i, range] of read.entries()) expect(range).toEqual(blocks.slice(0, i + 1));
  });
});
