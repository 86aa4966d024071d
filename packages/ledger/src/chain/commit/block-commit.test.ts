import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  importQueued,
  openTempChain,
  produceTransferBlocks,
  type TempChain,
  testWallet,
} from '../../testing/temp-chain';
import type { ChainCore } from '../chain-core';
import { type ChainBatch, ChainStore } from '../storage/store';
import { DURABLE_IMPORT_EVERY } from './block-commit';

const chains: TempChain[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (chains.length > 0) await chains.pop()!.cleanup();
});

async function chainOf(blocks: number): Promise<Uint8Array[]> {
  const source = await openTempChain();
  chains.push(source);
  return produceTransferBlocks(source.chain, blocks, testWallet('durable-import-receiver').address);
}

interface Write {
  batches: number;
  sync: boolean;
}

/** Every LevelDB write of the chain store from now on: how many batches, synced or not. */
function recordWrites(): Write[] {
  const writes: Write[] = [];
  const writeNow = ChainStore.prototype.writeNow;
  vi.spyOn(ChainStore.prototype, 'writeNow').mockImplementation(function (
    this: ChainStore,
    batches: readonly ChainBatch[],
    sync: boolean,
  ) {
    writes.push({ batches: batches.length, sync });
    return writeNow.call(this, batches, sync);
  });
  return writes;
}

describe('durability of imported blocks', () => {
  it('syncs a burst of imports once at its end and at least every DURABLE_IMPORT_EVERY blocks', async () => {
    const blocks = await chainOf(DURABLE_IMPORT_EVERY + 40);
    const target = await openTempChain();
    chains.push(target);
    const writes = recordWrites();
    await importQueued(target.chain, blocks);
    expect(target.chain.blockCount()).toBe(blocks.length + 1);
    // Every block, and maybe a marker that synced the last writes.
    expect(writes.reduce((n, w) => n + w.batches, 0) - blocks.length).toBeOneOf([0, 1]);
    // Blocks waiting behind were written without their own fsync...
    expect(writes.filter((w) => !w.sync).length).toBeGreaterThan(writes.length / 2);
    // ...and the last one made them all durable, as did one every DURABLE_IMPORT_EVERY blocks.
    expect(writes.at(-1)!.sync).toBe(true);
    let unsynced = 0;
    for (const write of writes) {
      unsynced = write.sync ? 0 : unsynced + write.batches;
      expect(unsynced).toBeLessThan(DURABLE_IMPORT_EVERY);
    }
  });

  it('syncs a block imported alone', async () => {
    const [first] = await chainOf(1);
    const target = await openTempChain();
    chains.push(target);
    const writes = recordWrites();
    await target.chain.importBlock(first!);
    expect(writes).toEqual([{ batches: 1, sync: true }]);
  });
});

describe('blocks written behind', () => {
  it('apply while the blocks before them are written, and reach the disk a few per write', async () => {
    const blocks = await chainOf(120);
    const target = await openTempChain();
    chains.push(target);
    const writes = recordWrites();
    await importQueued(target.chain, blocks);
    expect(target.chain.blockCount()).toBe(blocks.length + 1);
    // A group commit: fewer LevelDB writes than blocks.
    expect(writes.length).toBeLessThan(blocks.length * 0.75);
    expect(Math.max(...writes.map((w) => w.batches))).toBeGreaterThan(1);
  });

  it('are found by readers as soon as the chain reports them', async () => {
    const blocks = await chainOf(60);
    const target = await openTempChain();
    chains.push(target);
    const reads: Promise<[Uint8Array | undefined, number | undefined]>[] = [];
    target.chain.onBlock((info) => {
      // Memory has the block now; its write may still be under way.
      reads.push(
        Promise.all([
          target.chain.getBlockBytes(info.block),
          target.chain.heightOfHash(Buffer.from(info.hash.slice(2), 'hex')),
        ]),
      );
    });
    await importQueued(target.chain, blocks);
    const found = await Promise.all(reads);
    expect(found).toHaveLength(blocks.length);
    found.forEach(([bytes, height], i) => {
      expect(bytes).toEqual(blocks[i]);
      expect(height).toBe(i + 1);
    });
  });

  it('stop the chain when a write fails; a restart resumes from the blocks on disk', async () => {
    const blocks = await chainOf(40);
    const target = await openTempChain();
    chains.push(target);
    const store = (target.chain as unknown as ChainCore).store!;
    const failures: Error[] = [];
    target.chain.onStoreFailure((error) => failures.push(error));
    // The second LevelDB write fails, as on a full disk: the first block's went through.
    let writes = 0;
    const batch = store.db.batch.bind(store.db);
    vi.spyOn(store.db, 'batch').mockImplementation(((...args: unknown[]) => {
      const real = (batch as (...a: unknown[]) => ReturnType<typeof store.db.batch>)(...args);
      if (++writes === 2) {
        real.write = (async () => {
          throw new Error('No space left on device');
        }) as typeof real.write;
      }
      return real;
    }) as typeof store.db.batch);
    const run = await target.chain.importBlocks(blocks);
    expect(run.imported).toBeLessThan(blocks.length);
    expect(run.refused?.error).toMatchObject({ reason: 'STORE_FAILED' });
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toContain('No space left on device');
    // Nothing changes or reads after it: memory may hold blocks the disk does not.
    await expect(target.chain.getBlockBytes(1)).rejects.toMatchObject({ reason: 'STORE_FAILED' });
    vi.restoreAllMocks();
    await target.chain.close();

    const reopened = await openTempChain({ dataDir: target.dir });
    chains.push(reopened);
    const onDisk = reopened.chain.blockCount() - 1;
    expect(onDisk).toBeLessThan(blocks.length);
    for (let h = 1; h <= onDisk; h++) {
      expect(await reopened.chain.getBlockBytes(h)).toEqual(blocks[h - 1]);
    }
    await importQueued(reopened.chain, blocks.slice(onDisk));
    expect(reopened.chain.blockCount()).toBe(blocks.length + 1);
  });
});
