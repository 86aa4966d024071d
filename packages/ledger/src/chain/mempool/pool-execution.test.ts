import { afterEach, describe, expect, it } from 'vitest';
import { transferRequest } from '../../codec';
import {
  COIN,
  devWallet,
  fundAndActivate,
  importQueued,
  mine,
  namespacedWallet,
  openTempChain,
  type TempChain,
  transferTo,
} from '../../testing/temp-chain';
import type { ChainCore } from '../chain-core';

const sender = namespacedWallet('pool-execution', 'sender');
const receiver = (i: number) => namespacedWallet('pool-execution-r', `r${i}`).address;

function send(temp: TempChain, i: number) {
  return temp.chain.signAndSubmit(
    transferRequest(
      { signer: sender.address, privateKey: sender.privateKey },
      transferTo(receiver(i), 1000n + BigInt(i)),
    ),
  );
}

describe('a block made from the pool', () => {
  const temps: TempChain[] = [];
  afterEach(async () => {
    for (const temp of temps.splice(0)) await temp.cleanup();
  });

  it('applies again the entries carried over from an earlier block and the next one of their signer, and merges the rest', async () => {
    const temp = await openTempChain();
    temps.push(temp);
    const { applyOnce } = (temp.chain as unknown as ChainCore).mempool;
    await fundAndActivate(temp.chain, sender, 10n * COIN);
    // Three pending; a block of one: two wait across it (their deltas hold the earlier height).
    for (let i = 0; i < 3; i++) await send(temp, i);
    await temp.chain.produceBlock(devWallet.privateKey, { maxOperations: 1 });
    expect(temp.chain.pendingCount()).toBe(2);
    // Four more, admitted on the new head, behind the two carried over.
    for (let i = 3; i < 7; i++) await send(temp, i);
    const before = { ...applyOnce };

    const info = await mine(temp.chain);

    expect(info?.operations).toBe(6);
    expect(temp.chain.pendingCount()).toBe(0);
    // The two carried over and the first admitted after them are applied again; the three behind
    // those merge from their deltas (they read the signer as the block left it).
    expect(applyOnce.reapplied - before.reapplied).toBe(3);
    expect(applyOnce.merged - before.merged).toBe(3);
    expect(temp.chain.walletInfo(sender.address).n_operation).toBe(8);

    // A chain that re-executes every block ends on the same state.
    const replay = await openTempChain();
    temps.push(replay);
    const blocks: Uint8Array[] = [];
    for (let h = 1; h < temp.chain.blockCount(); h++) {
      blocks.push((await temp.chain.getBlockBytes(h))!);
    }
    await importQueued(replay.chain, blocks);
    expect(replay.chain.head().hash).toEqual(temp.chain.head().hash);
    expect(replay.chain.stateRoot()).toEqual(temp.chain.stateRoot());
  });
});
