import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK } from '../../operation/activation';
import { NEW_ACCOUNT } from '../../operation/operation';
import {
  COIN,
  devWallet,
  fundAndActivate,
  openTempChain,
  testWallet,
  transferTo,
} from '../../testing/temp-chain';
import type { Chain } from '../chain';

const alice = testWallet('alice');
const bob = testWallet('bob');
const carol = testWallet('carol');
const ACT = 10n ** 14n;

let chain: Chain;
let cleanup: () => Promise<void>;
let aliceNumber: number;

const refusal = (code: number, reason: string, extra: object = {}) =>
  expect.objectContaining({ code, reason, ...extra });

beforeEach(async () => {
  ({ chain, cleanup } = await openTempChain());
  await fundAndActivate(chain, alice, 10n * COIN);
  // bob only receives: on chain, inactive.
  await chain.signAndSubmit({
    optype: 2,
    signer: devWallet.address,
    privateKey: devWallet.privateKey,
    body: transferTo(bob.address, COIN),
  });
  await chain.produceBlock(devWallet.privateKey);
  aliceNumber = chain.accountByAddress(alice.address)!.number;
});
afterEach(() => cleanup());

function aliceOp(
  overrides: { nOperation?: number; fee?: bigint; amount?: bigint; key?: Uint8Array } = {},
) {
  return chain.buildSignedOperation({
    optype: 2,
    signerAccount: aliceNumber,
    nOperation: overrides.nOperation ?? 2,
    privateKey: overrides.key ?? alice.privateKey,
    body: transferTo(carol.address, overrides.amount ?? COIN),
    fee: overrides.fee ?? ACT,
  });
}

describe('operation validation', () => {
  it('accepts a valid operation', async () => {
    const result = await chain.submitOperation(aliceOp());
    expect(result).toMatchObject({
      block: 0,
      maturation: null,
      n_operation: 2,
      amount: String(COIN),
    });
  });

  it('refuses a signer that is not on chain', async () => {
    await expect(
      chain.signAndSubmit({
        optype: 2,
        signer: carol.address,
        privateKey: carol.privateKey,
        body: transferTo(alice.address, 1n),
      }),
    ).rejects.toThrow(refusal(1002, 'UNKNOWN_ACCOUNT', { param: 'signer' }));
    const raw = chain.buildSignedOperation({
      optype: 2,
      signerAccount: 999,
      nOperation: 1,
      privateKey: carol.privateKey,
      body: transferTo(alice.address, 1n),
    });
    await expect(chain.submitOperation(raw)).rejects.toThrow(refusal(1002, 'UNKNOWN_ACCOUNT'));
  });

  it('refuses an inactive signer', async () => {
    await expect(
      chain.signAndSubmit({
        optype: 2,
        signer: bob.address,
        privateKey: bob.privateKey,
        body: transferTo(alice.address, 1n),
      }),
    ).rejects.toThrow(refusal(1033, 'INACTIVE_ACCOUNT'));
  });

  it('refuses a wrong n_operation (replayed or skipped)', async () => {
    await expect(chain.submitOperation(aliceOp({ nOperation: 1 }))).rejects.toThrow(
      refusal(1032, 'INVALID_N_OPERATION'),
    );
    await expect(chain.submitOperation(aliceOp({ nOperation: 3 }))).rejects.toThrow(
      refusal(1032, 'INVALID_N_OPERATION'),
    );
  });

  it('refuses a fee below the act price, and a second zero-fee operation in a block', async () => {
    await expect(chain.submitOperation(aliceOp({ fee: ACT - 1n }))).rejects.toThrow(
      refusal(1036, 'FEE_TOO_LOW'),
    );
    await chain.submitOperation(aliceOp({ fee: 0n }));
    await expect(chain.submitOperation(aliceOp({ nOperation: 3, fee: 0n }))).rejects.toThrow(
      refusal(1036, 'ZERO_FEE_USED'),
    );
    await chain.submitOperation(aliceOp({ nOperation: 3, fee: ACT }));
    // In the next block the free operation is available again.
    await chain.produceBlock(devWallet.privateKey);
    await chain.submitOperation(aliceOp({ nOperation: 4, fee: 0n }));
  });

  it('refuses spending more than the spendable balance (fee + amount)', async () => {
    await expect(chain.submitOperation(aliceOp({ amount: 10n * COIN }))).rejects.toThrow(
      refusal(1031, 'INSUFFICIENT_FUNDS', { param: 'amount' }),
    );
    await chain.submitOperation(aliceOp({ amount: 10n * COIN - ACT }));
    expect(chain.accountByAddress(alice.address)!.balance).toBe(10n * COIN); // committed state unchanged
  });

  it('refuses a signature by another key or a damaged signature', async () => {
    await expect(chain.submitOperation(aliceOp({ key: bob.privateKey }))).rejects.toThrow(
      refusal(1020, 'SIGNATURE_MISMATCH'),
    );
    // signAndSubmit trusts its own signature only when the key is the signer's.
    await expect(
      chain.signAndSubmit({
        optype: 2,
        signer: alice.address,
        privateKey: bob.privateKey,
        body: transferTo(carol.address, 1n),
      }),
    ).rejects.toThrow(refusal(1020, 'SIGNATURE_MISMATCH'));
    await expect(
      chain.signAndSubmit({
        optype: 5,
        signer: carol.address,
        privateKey: carol.privateKey,
        body: { publicKey: bob.publicKey },
      }),
    ).rejects.toThrow(expect.objectContaining({ code: 1020 }));
    const damaged = aliceOp();
    damaged[damaged.length - 10]! ^= 1;
    await expect(chain.submitOperation(damaged)).rejects.toThrow(
      refusal(1020, 'SIGNATURE_MISMATCH'),
    );
  });

  it('refuses duplicates, pending and mined', async () => {
    const op = aliceOp();
    await chain.submitOperation(op);
    await expect(chain.submitOperation(op)).rejects.toThrow(refusal(1035, 'DUPLICATE_OPERATION'));
    await chain.produceBlock(devWallet.privateKey);
    await expect(chain.submitOperation(op)).rejects.toThrow(refusal(1035, 'DUPLICATE_OPERATION'));
  });

  it('refuses malformed bytes, unknown types and bad amounts', async () => {
    await expect(chain.submitOperation(Uint8Array.of(1, 2, 3))).rejects.toThrow(
      expect.objectContaining({ code: 1016 }),
    );
    const unknown = aliceOp();
    unknown[0] = 77;
    await expect(chain.submitOperation(unknown)).rejects.toThrow(refusal(1004, 'UNKNOWN_OPTYPE'));
    expect(() => aliceOp({ amount: -1n })).toThrow(
      refusal(1034, 'BAD_AMOUNT', { param: 'amount' }),
    );
  });

  it('refuses unknown receiver accounts and transfers to oneself', async () => {
    const toNowhere = chain.buildSignedOperation({
      optype: 2,
      signerAccount: aliceNumber,
      nOperation: 2,
      privateKey: alice.privateKey,
      body: {
        receiver: { account: 12345 },
        amount: 1n,
        payloadType: 0,
        payload: new Uint8Array(0),
      },
    });
    await expect(chain.submitOperation(toNowhere)).rejects.toThrow(
      refusal(1002, 'UNKNOWN_RECEIVER', { param: 'receiver' }),
    );
    await expect(
      chain.signAndSubmit({
        optype: 2,
        signer: alice.address,
        privateKey: alice.privateKey,
        body: transferTo(alice.address, 1n),
      }),
    ).rejects.toThrow(refusal(1002, 'SELF_TRANSFER'));
  });

  it('bounds the free new-account activations of a block (pending state included)', async () => {
    const activate = (label: string) => {
      const wallet = testWallet(label);
      return chain.signAndSubmit({
        optype: 5,
        signer: wallet.address,
        privateKey: wallet.privateKey,
        body: {},
      });
    };
    for (let i = 0; i < MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK; i++) await activate(`new-${i}`);
    await expect(activate('one-too-many')).rejects.toThrow(
      refusal(1038, 'NEW_ACCOUNTS_FULL', { param: 'signer' }),
    );
    // An address that received coins first is an account already: its activation is not bounded.
    await expect(
      chain.signAndSubmit({ optype: 5, signer: bob.address, privateKey: bob.privateKey, body: {} }),
    ).resolves.toMatchObject({ optype: 5 });
    const block = await chain.produceBlock(devWallet.privateKey);
    expect(block?.operations).toBe(MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK + 1);
    await expect(activate('one-too-many')).resolves.toMatchObject({ optype: 5 });
  });

  it('activation: free once per block, refused when already active, key must match', async () => {
    await expect(
      chain.signAndSubmit({
        optype: 5,
        signer: alice.address,
        privateKey: alice.privateKey,
        body: {},
      }),
    ).rejects.toThrow(refusal(1004, 'ALREADY_ACTIVE'));
    // bob activates with the default (zero) fee; a new address activates as NEW_ACCOUNT.
    const bobActive = await chain.signAndSubmit({
      optype: 5,
      signer: bob.address,
      privateKey: bob.privateKey,
      body: {},
    });
    expect(bobActive).toMatchObject({
      optype: 5,
      oprice: '0',
      receivers: [],
      optxt: `Active Wallet ${bob.address}`,
    });
    const carolActive = await chain.signAndSubmit({
      optype: 5,
      signer: carol.address,
      privateKey: carol.privateKey,
      body: {},
    });
    expect(carolActive.ophash.slice(8, 16)).toBe('ffffffff');
    expect(NEW_ACCOUNT).toBe(0xffffffff);
    // A key that is not the account's.
    const wrongKey = chain.buildSignedOperation({
      optype: 5,
      signerAccount: aliceNumber,
      nOperation: 2,
      privateKey: bob.privateKey,
      body: { publicKey: bob.publicKey },
      fee: 0n,
    });
    await expect(chain.submitOperation(wrongKey)).rejects.toThrow(
      refusal(1020, 'KEY_NOT_OF_ACCOUNT'),
    );
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.walletInfo(carol.address)).toMatchObject({
      state: 'normal wallet',
      n_operation: 1,
      balance: '0',
    });
    expect(chain.walletInfo(bob.address).state).toBe('normal wallet');
  });

  it('refuses when the mempool is full', async () => {
    const small = await openTempChain({ maxPending: 2 });
    try {
      const send = (n: number) =>
        small.chain.signAndSubmit({
          optype: 2,
          signer: devWallet.address,
          privateKey: devWallet.privateKey,
          body: transferTo(alice.address, BigInt(n)),
        });
      await send(1);
      await send(2);
      await expect(send(3)).rejects.toThrow(refusal(1038, 'MEMPOOL_FULL'));
    } finally {
      await small.cleanup();
    }
  });

  it('reads refuse bad addresses and heights with the parameter named', async () => {
    expect(() => chain.walletInfo('CHnot-an-address')).toThrow(
      expect.objectContaining({ code: 1002, param: 'wallet' }),
    );
    await expect(chain.blockInfo(chain.blockCount())).rejects.toThrow(
      expect.objectContaining({ code: 1003, param: 'block' }),
    );
    await expect(chain.blockOperations(-1)).rejects.toThrow(
      expect.objectContaining({ code: 1003 }),
    );
    await expect(chain.findOperation('zz')).rejects.toThrow(
      expect.objectContaining({ code: 1016, param: 'ophash' }),
    );
  });
});
