import { afterEach, describe, expect, it } from 'vitest';
import { mine, openTempChain, payFromDev, type TempChain, testWallet } from '../testing/temp-chain';
import type { ListenerKind } from './chain-types';

// A listener's failure is its own (issue 29): the listeners after it still run, and the chain tells
// onListenerError so the node can log and count it.
let temp: TempChain | undefined;
let other: TempChain | undefined;

afterEach(async () => {
  await temp?.cleanup();
  await other?.cleanup();
  temp = undefined;
  other = undefined;
});

describe('listener failures', () => {
  it('a throwing block, pending or observer listener costs the others nothing, and is reported', async () => {
    const reported: Array<{ error: unknown; listener: ListenerKind }> = [];
    temp = await openTempChain({
      onListenerError: (error, listener) => reported.push({ error, listener }),
    });
    const { chain } = temp;
    const blocks: string[] = [];
    const pending: string[] = [];
    const boom = new Error('listener bug');
    chain.onBlock((info) => blocks.push(`first ${info.block}`));
    chain.onBlock(() => {
      throw boom;
    });
    chain.onBlock((info) => blocks.push(`third ${info.block}`));
    chain.onPending(() => {
      throw boom;
    });
    chain.onPending((bytes) => pending.push(`after ${bytes.length > 0}`));

    await payFromDev(chain, testWallet('listener').address, 1n);
    const block = (await mine(chain))!.block;

    expect(blocks).toEqual([`first ${block}`, `third ${block}`]);
    expect(pending).toEqual(['after true']);
    expect(reported).toEqual([
      { error: boom, listener: 'pending' },
      { error: boom, listener: 'block' },
    ]);
    expect(chain.head().height).toBe(block);
  });

  it('an onListenerError that throws itself is dropped: the block is committed', async () => {
    temp = await openTempChain({
      onListenerError: () => {
        throw new Error('reporting failed');
      },
    });
    const { chain } = temp;
    const seen: number[] = [];
    chain.onBlock(() => {
      throw new Error('listener bug');
    });
    chain.onBlock((info) => seen.push(info.block));
    await payFromDev(chain, testWallet('listener').address, 1n);
    const block = (await mine(chain))!.block;
    expect(seen).toEqual([block]);
    expect(chain.blockCount()).toBe(block + 1);
  });

  it('an observer (import timing) that throws is reported, the next observer still runs', async () => {
    temp = await openTempChain();
    await payFromDev(temp.chain, testWallet('listener').address, 1n);
    const block = (await mine(temp.chain))!.block;
    const bytes = (await temp.chain.getBlockBytes(block))!;

    const reported: ListenerKind[] = [];
    other = await openTempChain({ onListenerError: (_error, listener) => reported.push(listener) });
    const timed: number[] = [];
    other.chain.onImportTimed(() => {
      throw new Error('metrics bug');
    });
    other.chain.onImportTimed((seconds) => timed.push(seconds));
    await other.chain.importBlock(bytes);
    expect(timed).toHaveLength(1);
    expect(reported).toEqual(['observer']);
    expect(other.chain.blockCount()).toBe(block + 1);
  });
});
