import { afterEach, describe, expect, it } from 'vitest';
import { transferRequest } from '../../codec';
import { createDevGenesis } from '../../genesis';
import {
  COIN,
  fundAndActivate,
  mine,
  namespacedWallet,
  openTempChain,
  type TempChain,
  type TestWallet,
  transferTo,
} from '../../testing/temp-chain';
import type { ChainCore } from '../chain-core';
import { PENDING_DELTA_BYTES, PENDING_ENTRY_BYTES, PENDING_STATE_ENTRY_BYTES } from './mempool';

const senders = Array.from({ length: 4 }, (_, i) => namespacedWallet('pool-budget', `s${i}`));
/** A new receiver per transfer: each adds an account and an address to the pending layer. */
const receiver = (i: number) => namespacedWallet('pool-budget-r', `r${i}`).address;
const BUDGET = 384 * 1024;
/** A block takes at most this many operations, so the pool drains over several blocks. */
const BLOCK_OPERATIONS = 50;

function send(temp: TempChain, sender: TestWallet, i: number) {
  return temp.chain.signAndSubmit(
    transferRequest(
      { signer: sender.address, privateKey: sender.privateKey },
      transferTo(receiver(i), 1n),
    ),
  );
}

/** Submits until the pool refuses; what was acknowledged and the refusal. */
async function fillUntilRefused(temp: TempChain, from: number) {
  const acknowledged: string[] = [];
  // A few hundred fit the budget; thousands mean it is not counted.
  for (let i = from; i < from + 2_000; i += senders.length) {
    const results = await Promise.allSettled(senders.map((s, k) => send(temp, s, i + k)));
    for (const result of results) {
      if (result.status === 'fulfilled') acknowledged.push(result.value.ophash);
    }
    const refused = results.find((result) => result.status === 'rejected');
    if (refused !== undefined) return { acknowledged, refusal: refused.reason, next: i };
  }
  throw new Error(`${acknowledged.length} operations taken: the pool never refused`);
}

describe('the mempool byte budget', () => {
  let temp: TempChain | undefined;
  afterEach(async () => {
    await temp?.cleanup();
    temp = undefined;
  });

  it('refuses with MEMPOOL_FULL past its bytes, keeps what it acknowledged, and takes again as blocks drain it', async () => {
    temp = await openTempChain({
      maxPendingBytes: BUDGET,
      genesis: createDevGenesis({ maxBlockOperations: BLOCK_OPERATIONS }),
    });
    const core = temp.chain as unknown as ChainCore;
    await fundAndActivate(temp.chain, senders, 10n * COIN);

    const { acknowledged, refusal, next } = await fillUntilRefused(temp, 0);
    expect(refusal).toMatchObject({ code: 1038, reason: 'MEMPOOL_FULL' });
    expect(String(refusal.message)).toMatch(
      /mempool is full .*0\.4 MB\): retry after the next block/,
    );
    // Refused at the budget, not before it (the count limit is far) and not much past it.
    const perEntry = PENDING_ENTRY_BYTES + PENDING_DELTA_BYTES + 2 * PENDING_STATE_ENTRY_BYTES;
    expect(core.mempool.bytes).toBeGreaterThanOrEqual(BUDGET);
    expect(core.mempool.bytes).toBeLessThan(BUDGET + senders.length * (perEntry + 200));
    expect(temp.chain.pendingCount()).toBe(acknowledged.length);
    expect(acknowledged.length).toBeGreaterThan(BLOCK_OPERATIONS * 2);

    // Each block takes its share out, and the pool's bytes follow; nothing acknowledged is lost.
    const before = core.mempool.bytes;
    await mine(temp.chain);
    expect(temp.chain.pendingCount()).toBe(acknowledged.length - BLOCK_OPERATIONS);
    expect(core.mempool.bytes).toBeLessThan(before);
    const again = await send(temp, senders[0]!, next + 1_000);
    acknowledged.push(again.ophash);

    while (temp.chain.pendingCount() > 0) await mine(temp.chain);
    expect(core.mempool.bytes).toBe(0);
    for (const ophash of acknowledged) {
      const found = await temp.chain.findOperation(ophash);
      expect(found[0]?.block).toBeGreaterThan(0);
    }
  });

  it('takes back at open every operation journaled before a restart, whatever its budget', async () => {
    temp = await openTempChain({ maxPendingBytes: BUDGET });
    await fundAndActivate(temp.chain, senders, 10n * COIN);
    const { acknowledged } = await fillUntilRefused(temp, 0);
    const dir = temp.dir;
    await temp.chain.close();
    const reopened = await openTempChain({ dataDir: dir, maxPendingBytes: BUDGET / 4 });
    const remove = temp.cleanup;
    temp = {
      ...reopened,
      cleanup: async () => {
        await reopened.cleanup();
        await remove();
      },
    };
    expect(reopened.chain.pendingCount()).toBe(acknowledged.length);
    await expect(send(reopened, senders[0]!, 10_000)).rejects.toMatchObject({
      reason: 'MEMPOOL_FULL',
    });
  });
});
