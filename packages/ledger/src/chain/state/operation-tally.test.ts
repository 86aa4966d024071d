import { afterEach, describe, expect, it } from 'vitest';
import {
  mine,
  openTempChain,
  payFromDev,
  produceTransferBlocks,
  testWallet,
} from '../../testing/temp-chain';
import { ChainStore } from '../storage/store';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function counted(chain: { operationCount(): number | undefined }): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const count = chain.operationCount();
    if (count !== undefined) return count;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the operations were never counted');
}

describe('operationCount (what a replay from block 0 applies)', () => {
  it('counts the stored operations once asked, then follows commits and rollbacks', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const { chain } = t;
    const bob = testWallet('bob').address;
    await produceTransferBlocks(chain, 3, bob);
    for (let i = 0; i < 4; i++) await payFromDev(chain, bob, 1n);
    await mine(chain);
    expect(await counted(chain)).toBe(7);

    await produceTransferBlocks(chain, 2, bob);
    expect(chain.operationCount()).toBe(9);
    await chain.rollback(3);
    expect(chain.operationCount()).toBe(3);
  });

  it('is read from the data directory after a restart, with no pass over the index', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const carol = testWallet('carol').address;
    await produceTransferBlocks(t.chain, 5, carol);
    expect(await counted(t.chain)).toBe(5);
    await produceTransferBlocks(t.chain, 2, carol);
    await t.chain.close();
    const again = await openTempChain({ dataDir: t.dir });
    cleanups.push(again.cleanup);
    expect(again.chain.operationCount()).toBe(7);
    await again.chain.rollback(4);
    await again.chain.close();
    const third = await openTempChain({ dataDir: t.dir });
    cleanups.push(third.cleanup);
    expect(third.chain.operationCount()).toBe(4);
  });

  it('is counted from the index in a data directory that does not hold it, then kept', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const carol = testWallet('carol').address;
    await produceTransferBlocks(t.chain, 5, carol);
    await counted(t.chain);
    await t.chain.close();
    // As a data directory made before the total was kept.
    const store = await ChainStore.open(t.dir);
    await store.meta.del('operation-count');
    await store.close();

    const again = await openTempChain({ dataDir: t.dir });
    cleanups.push(again.cleanup);
    expect(again.chain.operationCount()).toBeUndefined();
    expect(await counted(again.chain)).toBe(5);
    await produceTransferBlocks(again.chain, 1, carol);
    await again.chain.close();
    const third = await openTempChain({ dataDir: t.dir });
    cleanups.push(third.cleanup);
    expect(third.chain.operationCount()).toBe(6);
  });
});
