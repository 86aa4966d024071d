import { afterEach, describe, expect, it, vi } from 'vitest';
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
import type { SignRequest } from '../chain-types';

const alice = testWallet('alice');
const bob = testWallet('bob');
const carol = testWallet('carol');
const ACT = 10n ** 14n;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A chain where alice and bob hold 10 coins each and have signed one operation (n_operation 1). */
async function chainWithWallets(verifyThreads: number): Promise<Chain> {
  const { chain, cleanup } = await openTempChain({ verifyThreads });
  cleanups.push(cleanup);
  await fundAndActivate(chain, [alice, bob], 10n * COIN);
  return chain;
}

const verifierOf = (c: Chain) => (c as unknown as ChainCore).verifier;

function send(from: typeof alice, amount = 1000n): SignRequest {
  return {
    optype: 2,
    signer: from.address,
    privateKey: from.privateKey,
    body: transferTo(carol.address, amount),
    fee: ACT,
  };
}

describe('sendTo signed ahead on the verifier threads', () => {
  for (const threads of [1, 0]) {
    it(`gives concurrent requests of one account consecutive n_operation in arrival order (${threads} threads)`, async () => {
      const chain = await chainWithWallets(threads);
      const sign = vi.spyOn(verifierOf(chain), 'sign');
      const requests = Array.from({ length: 30 }, (_, i) => send(i % 3 === 2 ? bob : alice));

      const results = await Promise.all(requests.map((r) => chain.signAndSubmit(r)));

      // Alice's 20 take 2..21 in the order they came, bob's 10 take 2..11.
      const aliceN = results.filter((_, i) => i % 3 !== 2).map((r) => r.n_operation);
      const bobN = results.filter((_, i) => i % 3 === 2).map((r) => r.n_operation);
      expect(aliceN).toEqual(Array.from({ length: 20 }, (_, i) => 2 + i));
      expect(bobN).toEqual(Array.from({ length: 10 }, (_, i) => 2 + i));
      expect(sign).toHaveBeenCalledTimes(1);
      expect(sign.mock.calls[0]![0]).toHaveLength(30);
      expect(chain.pendingCount()).toBe(30);
      expect((await mine(chain))?.operations).toBe(30);
      expect(chain.accountByAddress(alice.address)?.nOperation).toBe(21);
    });
  }

  it('moves the later requests of an account down when one among them is refused', async () => {
    const chain = await chainWithWallets(1);
    // The sixth sends more than alice has: refused at admission, after it was signed.
    const requests = Array.from({ length: 12 }, (_, i) => send(alice, i === 5 ? 100n * COIN : 1n));

    const results = await Promise.allSettled(requests.map((r) => chain.signAndSubmit(r)));

    expect(results[5]).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ param: 'amount' }),
    });
    const admitted = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => r.value.n_operation);
    expect(admitted).toEqual(Array.from({ length: 11 }, (_, i) => 2 + i));
    expect((await mine(chain))?.operations).toBe(11);
    expect(chain.accountByAddress(alice.address)?.nOperation).toBe(12);
  });

  it('signs again the requests whose n_operation another operation of the account took meanwhile', async () => {
    const chain = await chainWithWallets(1);
    const aliceNumber = chain.accountByAddress(alice.address)!.number;
    const raw = chain.buildSignedOperation({
      optype: 2,
      signerAccount: aliceNumber,
      nOperation: 2,
      privateKey: alice.privateKey,
      body: transferTo(carol.address, 5n),
      fee: ACT,
    });
    // While the turn's signatures are made, an operation alice signed elsewhere takes n_operation 2.
    const pool = verifierOf(chain);
    const realSign = pool.sign.bind(pool);
    vi.spyOn(pool, 'sign').mockImplementation(async (items, split) => {
      const signatures = await realSign(items, split);
      await chain.submitOperation(raw);
      return signatures;
    });

    const results = await Promise.all(
      Array.from({ length: 8 }, () => chain.signAndSubmit(send(alice))),
    );

    expect(results.map((r) => r.n_operation)).toEqual(Array.from({ length: 8 }, (_, i) => 3 + i));
    expect((await mine(chain))?.operations).toBe(9);
  });

  it('refuses a bad key with the error signing it on the calling thread gives', async () => {
    const chain = await chainWithWallets(1);
    const requests = [send(alice), { ...send(alice), privateKey: new Uint8Array(32) }, send(alice)];

    const results = await Promise.allSettled(requests.map((r) => chain.signAndSubmit(r)));

    expect(results[1]).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ param: 'privateKey' }),
    });
    const admitted = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => r.value.n_operation);
    expect(admitted).toEqual([2, 3]);
  });
});
