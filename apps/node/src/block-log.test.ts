import { Writable } from 'node:stream';
import {
  mine,
  namespacedWallet,
  openTempChain,
  payFromDev,
  type TempChain,
} from '@chain/ledger/testing';
import type { SyncProgress } from '@chain/p2p-libp2p';
import { afterEach, describe, expect, it } from 'vitest';
import { logBlocks, SYNC_BLOCK_LOG_GAP } from './block-log';
import { createLogger } from './logger';

const chains: TempChain[] = [];
afterEach(async () => {
  while (chains.length > 0) await chains.pop()!.cleanup();
});

function blockRecords() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const heights = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((record) => record.msg === 'block')
      .map((record) => record.block as number);
  return { log: createLogger('info', stream, 'json'), heights };
}

async function madeBlocks(count: number): Promise<Uint8Array[]> {
  const source = await openTempChain();
  chains.push(source);
  const receiver = namespacedWallet('block-log', 'receiver');
  for (let i = 0; i < count; i++) {
    await payFromDev(source.chain, receiver.address, 1n);
    await mine(source.chain);
  }
  const blocks: Uint8Array[] = [];
  for (let h = 1; h <= count; h++) blocks.push((await source.chain.getBlockBytes(h))!);
  return blocks;
}

describe('block log', () => {
  it('logs each block, but not those of a sync far behind its peers', async () => {
    const blocks = await madeBlocks(7);
    const target = await openTempChain();
    chains.push(target);
    const sync = { syncing: false, highestBlock: 0 };
    const network = {
      syncProgress: (): SyncProgress => ({
        startingBlock: 0,
        currentBlock: target.chain.head().height,
        ...sync,
      }),
    };
    const { log, heights } = blockRecords();
    logBlocks(target.chain, network, log);
    const importUpTo = async (height: number) => {
      for (let h = target.chain.head().height + 1; h <= height; h++) {
        await target.chain.importBlock(blocks[h - 1]!);
      }
    };
    await importUpTo(3);
    expect(heights()).toEqual([1, 2, 3]);
    Object.assign(sync, { syncing: true, highestBlock: 6 + SYNC_BLOCK_LOG_GAP });
    await importUpTo(6);
    expect(heights()).toEqual([1, 2, 3]);
    // Near the peers' tip again: one record per block.
    sync.highestBlock = 7;
    await importUpTo(7);
    expect(heights()).toEqual([1, 2, 3, 7]);
  });
});
