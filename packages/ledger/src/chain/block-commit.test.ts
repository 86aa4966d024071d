import { afterEach, describe, expect, it, vi } from 'vitest';
import { mine, openTempChain, payFromDev, type TempChain, testWallet } from '../testing/temp-chain';
import { DURABLE_IMPORT_EVERY } from './block-commit';
import { ChainBatch } from './store';

const chains: TempChain[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (chains.length > 0) await chains.pop()!.cleanup();
});

async function chainOf(blocks: number): Promise<Uint8Array[]> {
  const source = await openTempChain();
  chains.push(source);
  const receiver = testWallet('durable-import-receiver');
  for (let i = 0; i < blocks; i++) {
    await payFromDev(source.chain, receiver.address, 1n);
    await mine(source.chain);
  }
  const out: Uint8Array[] = [];
  for (let h = 1; h < source.chain.blockCount(); h++) {
    out.push((await source.chain.getBlockBytes(h))!);
  }
  return out;
}

describe('durability of imported blocks', () => {
  it('syncs a burst of imports once at its end and at least every DURABLE_IMPORT_EVERY blocks', async () => {
    const blocks = await chainOf(DURABLE_IMPORT_EVERY + 40);
    const target = await openTempChain();
    chains.push(target);
    const syncs: boolean[] = [];
    const write = ChainBatch.prototype.write;
    vi.spyOn(ChainBatch.prototype, 'write').mockImplementation(function (
      this: ChainBatch,
      options,
    ) {
      syncs.push(options?.sync === true);
      return write.call(this, options);
    });
    // As a syncing node hands them over: several in flight.
    await Promise.all(blocks.map((bytes) => target.chain.importBlock(bytes)));
    expect(target.chain.blockCount()).toBe(blocks.length + 1);
    expect(syncs).toHaveLength(blocks.length);
    // Blocks waiting behind were written without their own fsync...
    expect(syncs.filter((s) => !s).length).toBeGreaterThan(blocks.length / 2);
    // ...and the last one made them all durable, as did one every DURABLE_IMPORT_EVERY blocks.
    expect(syncs.at(-1)).toBe(true);
    let unsynced = 0;
    for (const synced of syncs) {
      unsynced = synced ? 0 : unsynced + 1;
      expect(unsynced).toBeLessThan(DURABLE_IMPORT_EVERY);
    }
  });

  it('syncs a block imported alone', async () => {
    const [first] = await chainOf(1);
    const target = await openTempChain();
    chains.push(target);
    const spy = vi.spyOn(ChainBatch.prototype, 'write');
    await target.chain.importBlock(first!);
    expect(spy).toHaveBeenCalledWith({ sync: true });
  });
});
