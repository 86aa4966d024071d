import { afterEach, describe, expect, it } from 'vitest';
import { COIN, devWallet, openTempChain, testWallet, transferTo } from '../../testing/temp-chain';
import { createBlockProducer } from './producer';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('BlockProducer.wake', () => {
  it('produces with a key added after the operations arrived', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const keys: Uint8Array[] = [];
    const producer = createBlockProducer({
      chain: t.chain,
      blockTimeMs: 0,
      producerKeys: () => keys,
    });
    producer.start();
    cleanups.push(() => producer.close());
    await t.chain.signAndSubmit({
      optype: 2,
      signer: devWallet.address,
      privateKey: devWallet.privateKey,
      body: transferTo(testWallet('wake').address, COIN),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // No key of this node is a producer: nothing happens, and adding one alone changes nothing.
    keys.push(devWallet.privateKey);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(t.chain.blockCount()).toBe(1);
    const mined = new Promise((resolve) => t.chain.onBlock(resolve));
    producer.wake();
    await mined;
    expect(t.chain.blockCount()).toBe(2);
    expect(t.chain.pendingCount()).toBe(0);
  });
});
