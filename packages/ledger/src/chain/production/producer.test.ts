import { afterEach, describe, expect, it } from 'vitest';
import { devWallet, openTempChain, testWallet, transferTo } from '../../testing/temp-chain';
import type { Chain } from '../chain';
import type { BlockInfo } from '../state/presentation';
import { createBlockProducer, inTurnKey } from './producer';

const alice = testWallet('alice');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const send = (chain: Chain, amount: bigint) =>
  chain.signAndSubmit({
    optype: 2,
    signer: devWallet.address,
    privateKey: devWallet.privateKey,
    body: transferTo(alice.address, amount),
  });

function nextBlock(chain: Chain): Promise<BlockInfo> {
  return new Promise((resolve) => {
    const off = chain.onBlock((info) => {
      off();
      resolve(info);
    });
  });
}

describe('block producer', () => {
  it('with blockTimeMs 0 produces a block as soon as operations are pending, never an empty one', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const producer = createBlockProducer({
      chain: t.chain,
      blockTimeMs: 0,
      producerKeys: () => [devWallet.privateKey],
    });
    producer.start();
    cleanups.unshift(() => producer.close());
    await new Promise((r) => setTimeout(r, 50));
    expect(t.chain.blockCount()).toBe(1);
    const block = nextBlock(t.chain);
    await Promise.all([send(t.chain, 1n), send(t.chain, 2n), send(t.chain, 3n)]);
    expect(await block).toMatchObject({ block: 1, operations: 3 });
    expect(t.chain.pendingCount()).toBe(0);
  });

  it('with emptyBlockMs makes an empty block when nothing is pending, and confirmations count', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const producer = createBlockProducer({
      chain: t.chain,
      blockTimeMs: 0,
      emptyBlockMs: 150,
      producerKeys: () => [devWallet.privateKey],
    });
    producer.start();
    cleanups.unshift(() => producer.close());
    const deposit = nextBlock(t.chain);
    const op = await send(t.chain, 5n);
    expect(await deposit).toMatchObject({ block: 1, operations: 1 });
    const started = Date.now();
    const empty = await nextBlock(t.chain);
    // Not before emptyBlockMs after the last block (timers may fire a little early).
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(empty).toMatchObject({ block: 2, operations: 0 });
    expect(await nextBlock(t.chain)).toMatchObject({ block: 3, operations: 0 });
    const [found] = await t.chain.findOperation(op.ophash);
    expect(found!.maturation).toBeGreaterThanOrEqual(2);
    // The empty blocks import on another node: they are valid blocks.
    const other = await openTempChain();
    cleanups.push(other.cleanup);
    for (let h = 1; h <= 3; h++) await other.chain.importBlock((await t.chain.getBlockBytes(h))!);
    expect(other.chain.blockCount()).toBe(4);
  });

  it('waits blockTimeMs between blocks and stops on close', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const produced: Array<{ at: number; info: BlockInfo }> = [];
    const producer = createBlockProducer({
      chain: t.chain,
      blockTimeMs: 300,
      producerKeys: () => [devWallet.privateKey],
      maxOperations: 2,
      onBlock: (info) => produced.push({ at: Date.now(), info }),
    });
    producer.start();
    expect(producer.running).toBe(true);
    // Submitted in one tick, before the producer's first (immediate) attempt runs.
    await Promise.all([1n, 2n, 3n, 4n, 5n].map((amount) => send(t.chain, amount)));
    while (produced.length < 3) await new Promise((r) => setTimeout(r, 20));
    expect(produced.map((p) => p.info.operations)).toEqual([2, 2, 1]);
    expect(produced[1]!.at - produced[0]!.at).toBeGreaterThanOrEqual(280);
    expect(produced[2]!.at - produced[1]!.at).toBeGreaterThanOrEqual(280);
    await producer.close();
    await producer.close();
    expect(producer.running).toBe(false);
    await send(t.chain, 9n);
    await new Promise((r) => setTimeout(r, 400));
    expect(t.chain.blockCount()).toBe(4);
    expect(t.chain.pendingCount()).toBe(1);
  });

  it('counts blockTimeMs from the start of its last block, not from its commit', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    // A block that takes MAKE_MS to make (as 10,000 operations take about 0.4 s): the producer's
    // next one is due blockTimeMs after this one began, not blockTimeMs after it committed.
    const MAKE_MS = 1_000;
    const BLOCK_TIME_MS = 1_500;
    const began: number[] = [];
    const slow = new Proxy(t.chain, {
      get(target, property) {
        if (property === 'produceBlock') {
          return async (...args: Parameters<Chain['produceBlock']>) => {
            began.push(Date.now());
            await new Promise((r) => setTimeout(r, MAKE_MS));
            return target.produceBlock(...args);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const producer = createBlockProducer({
      chain: slow,
      blockTimeMs: BLOCK_TIME_MS,
      producerKeys: () => [devWallet.privateKey],
      maxOperations: 1,
    });
    await Promise.all([1n, 2n, 3n].map((amount) => send(t.chain, amount)));
    producer.start();
    cleanups.unshift(() => producer.close());
    while (t.chain.blockCount() < 4) await new Promise((r) => setTimeout(r, 20));
    for (let i = 1; i < 3; i++) {
      const gap = began[i]! - began[i - 1]!;
      // Not before blockTimeMs (timers may fire a little early) and well short of
      // blockTimeMs + MAKE_MS (2,500 ms), what counting from the commit gave: 500 ms of margin
      // for a busy machine's late timers.
      expect(gap).toBeGreaterThanOrEqual(BLOCK_TIME_MS - 20);
      expect(gap).toBeLessThan(BLOCK_TIME_MS + MAKE_MS / 2);
    }
  });

  it('produces nothing with keys outside the producer set, and keeps running', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    const errors: unknown[] = [];
    const producer = createBlockProducer({
      chain: t.chain,
      blockTimeMs: 0,
      producerKeys: () => [alice.privateKey],
      onError: (e) => errors.push(e),
    });
    producer.start();
    cleanups.unshift(() => producer.close());
    await send(t.chain, 1n);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.chain.blockCount()).toBe(1);
    expect(t.chain.pendingCount()).toBe(1);
    expect(errors).toEqual([]);
    expect(producer.running).toBe(true);
  });

  it('picks, among the keys it holds, the one of the producer in turn', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    expect(t.chain.producers()).toEqual([0]);
    expect(t.chain.producerAccount(devWallet.privateKey)).toBe(0);
    expect(t.chain.producerAccount(alice.privateKey)).toBeUndefined();
    expect(inTurnKey(t.chain, [alice.privateKey])).toBeUndefined();
    expect(inTurnKey(t.chain, [alice.privateKey, devWallet.privateKey])).toBe(devWallet.privateKey);
  });
});
