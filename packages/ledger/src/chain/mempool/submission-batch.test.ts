import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  COIN,
  fundAndActivate,
  mine,
  openTempChain,
  testWallet,
  transferTo,
} from '../../testing/temp-chain';
import type { Chain } from '../chain';
import type { ChainCore } from '../chain-core';

const alice = testWallet('alice');
const bob = testWallet('bob');
const carol = testWallet('carol');
const ACT = 10n ** 14n;

let chain: Chain;
let cleanup: () => Promise<void>;
let aliceNumber: number;

beforeEach(async () => {
  // One verifier thread, as on a 2-core machine.
  ({ chain, cleanup } = await openTempChain({ verifyThreads: 1 }));
  await fundAndActivate(chain, [alice, bob], 10n * COIN);
  aliceNumber = chain.accountByAddress(alice.address)!.number;
});
afterEach(() => cleanup());

/** Alice's transfers to carol carrying n_operation first, first + 1, ... (alice's is 1 now). */
function aliceOps(count: number, first = 2, key = alice.privateKey): Uint8Array[] {
  return Array.from({ length: count }, (_, i) =>
    chain.buildSignedOperation({
      optype: 2,
      signerAccount: aliceNumber,
      nOperation: first + i,
      privateKey: key,
      body: transferTo(carol.address, 1000n),
      fee: ACT,
    }),
  );
}

/** The chain's signature verifier (createChain's object is the core). */
const verifierOf = (c: Chain) => (c as unknown as ChainCore).verifier;

describe('operations submitted in one event-loop turn', () => {
  it('have their signatures checked in one batch shared with the verifier threads, and are admitted in order', async () => {
    const verify = vi.spyOn(verifierOf(chain), 'verify');
    const ops = aliceOps(40);

    // n_operation 2..41 from one signer, all at once: any reordering would refuse some.
    const results = await Promise.all(ops.map((op) => chain.submitOperation(op)));

    expect(results.map((r) => r.n_operation)).toEqual(ops.map((_, i) => 2 + i));
    expect(chain.pendingCount()).toBe(40);
    expect(verify).toHaveBeenCalledTimes(1);
    const [items, split] = verify.mock.calls[0]!;
    expect(items).toHaveLength(40);
    expect(split?.parallelFrom).toBeLessThanOrEqual(40);
    await expect(verify.mock.results[0]!.value).resolves.toEqual(new Array(40).fill(true));
    expect((await mine(chain))?.operations).toBe(40);
  });

  it('still refuses a bad signature in the batch, and admits the others', async () => {
    // The last one is signed with bob's key for alice's account.
    const ops = [...aliceOps(30), ...aliceOps(1, 32, bob.privateKey)];

    const results = await Promise.allSettled(ops.map((op) => chain.submitOperation(op)));

    expect(results.slice(0, 30).every((r) => r.status === 'fulfilled')).toBe(true);
    expect(results[30]).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ reason: 'SIGNATURE_MISMATCH' }),
    });
    expect(chain.pendingCount()).toBe(30);
  });

  it('refuses a replay of a batch member as a duplicate', async () => {
    const [op] = aliceOps(1);
    const [first, second] = await Promise.allSettled([
      chain.submitOperation(op!),
      chain.submitOperation(op!),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ reason: 'DUPLICATE_OPERATION' }),
    });
  });

  it('are admitted in slices, the event loop given back between them, still in order', async () => {
    // Far more than one 5-ms slice of admissions (a burst's turn: 128 connections' calls).
    const ops = aliceOps(2_000);
    const seen: number[] = [];
    let watching = true;
    const watch = () => {
      seen.push(chain.pendingCount());
      if (watching) setImmediate(watch);
    };
    setImmediate(watch);

    const results = await Promise.all(ops.map((op) => chain.submitOperation(op)));
    watching = false;

    expect(results.map((r) => r.n_operation)).toEqual(ops.map((_, i) => 2 + i));
    // A callback of the loop ran while the batch was part admitted.
    expect(seen.some((count) => count > 0 && count < ops.length)).toBe(true);
    expect(chain.pendingCount()).toBe(ops.length);
  });
});

describe('submitRaw', () => {
  it('submits every operation of a blob in order, one result each', async () => {
    const blob = chain.encodeRaw(aliceOps(25));

    const results = await Promise.all(chain.submitRaw(blob));

    expect(results.map((r) => r.n_operation)).toEqual(Array.from({ length: 25 }, (_, i) => 2 + i));
    expect(chain.pendingCount()).toBe(25);
  });

  it('refuses what is pending already before its turn: no state loaded, no signature looked at', async () => {
    const blob = chain.encodeRaw(aliceOps(25));
    await Promise.all(chain.submitRaw(blob));
    const core = chain as unknown as ChainCore;
    const signatures = vi.spyOn(core.sigCache, 'has');
    const checks = vi.spyOn(core, 'checkSignature');

    // A peer relaying what another peer sent first.
    const again = await Promise.allSettled(chain.submitRaw(blob));

    expect(again).toHaveLength(25);
    for (const outcome of again) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: expect.objectContaining({ reason: 'DUPLICATE_OPERATION' }),
      });
    }
    expect(signatures).not.toHaveBeenCalled();
    expect(checks).not.toHaveBeenCalled();
    expect(chain.pendingCount()).toBe(25);
  });

  it('refuses a blob that does not decode before submitting any of it', () => {
    const blob = chain.encodeRaw(aliceOps(3));
    expect(() => chain.submitRaw(blob.subarray(0, blob.length - 1))).toThrow(
      expect.objectContaining({ code: 1016 }),
    );
    expect(chain.pendingCount()).toBe(0);
  });
});
