import { afterEach, describe, expect, it } from 'vitest';
import { createDevGenesis } from '../../genesis';
import { createRegistry } from '../../operation/ledger-registry';
import type { OperationRegistry } from '../../operation/registry';
import {
  COIN,
  mine,
  openTempChain,
  payFromDev,
  type TempChain,
  testWallet,
} from '../../testing/temp-chain';
import { createChain } from '../chain';

// getBlockInfo's `reward` (what the block hooks paid out) and `subsidy` (the part beyond the
// fees), recorded when a block is executed: produced, imported, after a restart, after a rollback.

const SUBSIDY = 7n * COIN;
/** Every third block mints nothing (as a rule that pays some producers their fees only). */
const UNSUBSIDISED = 3;

function subsidyRegistry(): OperationRegistry {
  const registry = createRegistry();
  registry.registerBlockHook({
    afterOperations(ctx, block) {
      const subsidy = block.height % UNSUBSIDISED === 0 ? 0n : SUBSIDY;
      // Split over two accounts: the reward counts every credit, whoever receives it.
      ctx.credit(block.producer, block.fees);
      if (subsidy > 0n) ctx.credit(block.producer, subsidy);
    },
  });
  return registry;
}

const chains: TempChain[] = [];
afterEach(async () => {
  while (chains.length > 0) await chains.pop()!.cleanup();
});

async function tempChain(options: Parameters<typeof openTempChain>[0] = {}): Promise<TempChain> {
  const t = await openTempChain(options);
  chains.push(t);
  return t;
}

/** One block of `transfers` dev-wallet transfers; its height. */
async function blockOf(t: TempChain, transfers: number): Promise<number> {
  for (let i = 0; i < transfers; i++) {
    await payFromDev(t.chain, testWallet(`reward receiver ${i}`).address, COIN);
  }
  await mine(t.chain);
  return t.chain.blockCount() - 1;
}

describe('block reward', () => {
  it('is the fees when no hook mints, and the genesis block has none', async () => {
    const t = await tempChain();
    const height = await blockOf(t, 2);
    const info = await t.chain.blockInfo(height);
    expect(BigInt(info.trx_fee)).toBeGreaterThan(0n);
    expect(info).toMatchObject({ reward: info.trx_fee, subsidy: '0' });
    const genesis = await t.chain.blockInfo(0);
    expect(genesis.reward).toBeUndefined();
    expect(genesis.subsidy).toBeUndefined();
  });

  it('counts what the hooks credit, kept across a restart and the same on an importing node', async () => {
    const t = await tempChain({ registry: subsidyRegistry() });
    const heights = [await blockOf(t, 1), await blockOf(t, 2), await blockOf(t, 1)];
    const shown = [];
    for (const height of heights) {
      const info = await t.chain.blockInfo(height);
      const subsidy = height % UNSUBSIDISED === 0 ? 0n : SUBSIDY;
      expect(info.subsidy).toBe(subsidy.toString());
      expect(info.reward).toBe((BigInt(info.trx_fee) + subsidy).toString());
      shown.push(info);
    }
    expect(shown.map((info) => info.subsidy)).toContain('0');

    // Read back from the store (not the block cache of the chain that produced them).
    await t.chain.close();
    const reopened = createChain({
      dataDir: t.dir,
      genesis: createDevGenesis(),
      registry: subsidyRegistry(),
    });
    await reopened.open();
    try {
      for (const [i, height] of heights.entries()) {
        expect(await reopened.blockInfo(height)).toEqual(shown[i]);
      }
      // A node that imports the blocks executes them, and records the same.
      const other = await tempChain({ registry: subsidyRegistry() });
      for (let h = 1; h < reopened.blockCount(); h++) {
        await other.chain.importBlock((await reopened.getBlockBytes(h))!);
      }
      for (const [i, height] of heights.entries()) {
        expect(await other.chain.blockInfo(height)).toEqual(shown[i]);
      }
    } finally {
      await reopened.close();
    }
  });

  it('goes with its block on a rollback: the next block at that height has its own', async () => {
    const t = await tempChain({ registry: subsidyRegistry() });
    await blockOf(t, 1);
    const height = await blockOf(t, 3);
    const before = await t.chain.blockInfo(height);
    await t.chain.rollback(height - 1);
    // The rolled-back operations are pending again; one more joins them in the new block.
    await payFromDev(t.chain, testWallet('after the rollback').address, COIN);
    await mine(t.chain);
    const after = await t.chain.blockInfo(height);
    expect(after.hash).not.toBe(before.hash);
    expect(BigInt(after.trx_fee)).toBeGreaterThan(BigInt(before.trx_fee));
    expect(after.reward).toBe((BigInt(after.trx_fee) + SUBSIDY).toString());
  });
});
