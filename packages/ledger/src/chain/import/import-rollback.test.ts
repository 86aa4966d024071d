import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import type { BlockImportReason } from '@chain/spec';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BlockHeader,
  blockSigningHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  operationsRoot,
} from '../../block/block';
import { createDevGenesis, genesisHash } from '../../genesis';
import { createRegistry } from '../../operation/ledger-registry';
import { decodeOperation } from '../../operation/operation';
import {
  COIN,
  devWallet,
  fundAndActivate,
  openTempChain,
  testWallet,
  transferTo,
} from '../../testing/temp-chain';
import type { Chain } from '../chain';

const wallets = ['alice', 'bob', 'carol', 'dave'].map((n) => testWallet(n));
const [alice, bob, carol] = wallets as [
  (typeof wallets)[0],
  (typeof wallets)[0],
  (typeof wallets)[0],
];
const GENESIS_HASH = genesisHash(createDevGenesis());

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
async function tempChain() {
  const t = await openTempChain();
  cleanups.push(t.cleanup);
  return t.chain;
}

function snapshot(chain: Chain) {
  return {
    count: chain.blockCount(),
    head: chain.head(),
    root: chain.stateRoot(),
    // The committed state only: n_operation_pending also counts the mempool, which a rollback fills.
    wallets: [devWallet, ...wallets].map((w) => {
      const { n_operation_pending: _pending, ...committed } = chain.walletInfo(w.address);
      return committed;
    }),
  };
}

/** A few blocks with transfers, activations, new accounts and a zero-fee operation. */
async function buildHistory(chain: Chain): Promise<void> {
  await fundAndActivate(chain, alice, 50n * COIN);
  await chain.signAndSubmit({
    optype: 2,
    signer: alice.address,
    privateKey: alice.privateKey,
    body: transferTo(bob.address, 5n * COIN),
    fee: 0n,
  });
  await chain.signAndSubmit({
    optype: 2,
    signer: devWallet.address,
    privateKey: devWallet.privateKey,
    body: transferTo(carol.address, COIN),
  });
  await chain.produceBlock(devWallet.privateKey);
  await chain.signAndSubmit({
    optype: 5,
    signer: bob.address,
    privateKey: bob.privateKey,
    body: {},
  });
  await chain.signAndSubmit({
    optype: 2,
    signer: alice.address,
    privateKey: alice.privateKey,
    body: transferTo(carol.address, 2n * COIN),
  });
  await chain.produceBlock(devWallet.privateKey);
  await chain.signAndSubmit({
    optype: 2,
    signer: bob.address,
    privateKey: bob.privateKey,
    body: transferTo(alice.address, COIN),
  });
  await chain.produceBlock(devWallet.privateKey);
}

async function copyBlocks(
  from: Chain,
  to: Chain,
  fromHeight = 1,
  toHeight = from.blockCount(),
): Promise<void> {
  for (let h = fromHeight; h < toHeight; h++) await to.importBlock((await from.getBlockBytes(h))!);
}

/** Re-signs a block of `source` with fields changed (a well-signed but wrong block). */
function forge(
  bytes: Uint8Array,
  change: (header: BlockHeader, ops: Uint8Array[]) => void,
  key = devWallet.privateKey,
): Uint8Array {
  const block = decodeBlock(bytes, nativeHashes);
  const header = { ...block.header };
  const ops = block.operations.map((o) => Uint8Array.from(o));
  change(header, ops);
  const headerBytes = encodeBlockHeader(header);
  const signature = nativeSecp256k1.sign(
    blockSigningHash(GENESIS_HASH, headerBytes, nativeHashes),
    key,
  );
  return encodeBlock(headerBytes, signature, ops);
}

/** The native backend, counting its verifies (a chain with another backend verifies on its thread). */
function countingSecp() {
  const counter = { verifies: 0 };
  const secp256k1 = {
    ...nativeSecp256k1,
    verify(...args: Parameters<typeof nativeSecp256k1.verify>) {
      counter.verifies++;
      return nativeSecp256k1.verify(...args);
    },
  };
  return { counter, secp256k1 };
}

/** A chain whose head block holds five transfers from alice (funded and activated before). */
async function chainWithFiveTransfers(): Promise<Chain> {
  const a = await tempChain();
  await fundAndActivate(a, alice, 50n * COIN);
  for (let i = 0; i < 5; i++) {
    await a.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, BigInt(i + 1)),
    });
  }
  await a.produceBlock(devWallet.privateKey);
  return a;
}

describe('importBlock', () => {
  it('remembers the signatures of a block imported at the tip: a rollback does not verify them again', async () => {
    const a = await chainWithFiveTransfers();
    const { counter, secp256k1 } = countingSecp();
    const t = await openTempChain({ secp256k1 });
    cleanups.push(t.cleanup);
    await copyBlocks(a, t.chain, 1, 2);
    const before = counter.verifies;
    await copyBlocks(a, t.chain, 2);
    // The producer's signature and the five transfers.
    expect(counter.verifies - before).toBe(6);
    await t.chain.rollback(1);
    expect(t.chain.pendingCount()).toBe(5);
    expect(counter.verifies - before).toBe(6);
  });

  it('forgets the signatures of a block once it is signatureCacheDepth deep: a deeper rollback verifies them again', async () => {
    const a = await chainWithFiveTransfers();
    const fundedHeight = a.blockCount() - 2;
    for (const amount of [7n, 8n]) {
      await a.signAndSubmit({
        optype: 2,
        signer: devWallet.address,
        privateKey: devWallet.privateKey,
        body: transferTo(carol.address, amount),
      });
      await a.produceBlock(devWallet.privateKey);
    }
    // The five transfers' block is two deep once the two after it are in: depth 2 forgets it.
    const reverified = async (signatureCacheDepth?: number) => {
      const { counter, secp256k1 } = countingSecp();
      const t = await openTempChain({ secp256k1, signatureCacheDepth });
      cleanups.push(t.cleanup);
      await copyBlocks(a, t.chain);
      const before = counter.verifies;
      await t.chain.rollback(fundedHeight);
      expect(t.chain.pendingCount()).toBe(7);
      return counter.verifies - before;
    };
    expect(await reverified(2)).toBe(5);
    expect(await reverified()).toBe(0);
  });

  it('replays a chain built on node A on a fresh node B to the same head and state', async () => {
    const a = await tempChain();
    await buildHistory(a);
    const b = await tempChain();
    await copyBlocks(a, b);
    expect(snapshot(b)).toEqual(snapshot(a));
    for (let h = 0; h < a.blockCount(); h++) {
      expect(await b.blockInfo(h)).toEqual(await a.blockInfo(h));
      expect(await b.blockOperations(h)).toEqual(await a.blockOperations(h));
    }
  });

  it('refuses blocks that are malformed, out of place, badly signed or wrong, leaving state intact', async () => {
    const a = await tempChain();
    await buildHistory(a);
    const b = await tempChain();
    const block1 = (await a.getBlockBytes(1))!;
    const block2 = (await a.getBlockBytes(2))!;
    const before = snapshot(b);
    const refused = (reason: BlockImportReason) => expect.objectContaining({ code: 1003, reason });

    await expect(b.importBlock(block1.subarray(0, 50))).rejects.toThrow(refused('MALFORMED_BLOCK'));
    await expect(b.importBlock(block2)).rejects.toThrow(refused('NOT_NEXT_BLOCK'));
    const badSig = block1.slice();
    badSig[decodeBlock(block1, nativeHashes).headerBytes.length + 5]! ^= 1;
    await expect(b.importBlock(badSig)).rejects.toThrow(refused('BAD_BLOCK_SIGNATURE'));
    await expect(b.importBlock(forge(block1, () => {}, alice.privateKey))).rejects.toThrow(
      refused('BAD_BLOCK_SIGNATURE'),
    );
    await expect(
      b.importBlock(
        forge(block1, (h) => {
          h.producer = 5;
        }),
      ),
    ).rejects.toThrow(refused('BLOCK_BY_NON_PRODUCER'));
    await expect(
      b.importBlock(
        forge(block1, (h) => {
          h.prevHash = new Uint8Array(32).fill(1);
        }),
      ),
    ).rejects.toThrow(refused('WRONG_PARENT'));
    await expect(
      b.importBlock(
        forge(block1, (h) => {
          h.timestamp = Math.floor(Date.now() / 1000) + 60;
        }),
      ),
    ).rejects.toThrow(refused('TIMESTAMP_IN_FUTURE'));
    await expect(
      b.importBlock(
        forge(block1, (h) => {
          h.timestamp = 1;
        }),
      ),
    ).rejects.toThrow(refused('TIMESTAMP_TOO_EARLY'));
    await expect(
      b.importBlock(
        forge(block1, (h) => {
          h.stateRoot = new Uint8Array(32);
        }),
      ),
    ).rejects.toThrow(refused('BAD_STATE_ROOT'));
    await expect(
      b.importBlock(
        forge(block1, (_h, ops) => {
          ops.pop();
        }),
      ),
    ).rejects.toThrow(refused('BAD_OPERATIONS_ROOT'));
    await expect(
      b.importBlock(
        forge(block1, (h, ops) => {
          ops.push(ops[0]!);
          h.opsRoot = operationsRoot(
            ops.map((o) => decodeOperation(o, createRegistry(), nativeHashes).digest),
            nativeHashes,
          );
        }),
      ),
    ).rejects.toThrow(refused('DUPLICATE_OPERATION_IN_BLOCK'));
    // A well-formed, well-signed block holding an operation that is invalid on this state.
    const spendTooMuch = a.buildSignedOperation({
      optype: 2,
      signerAccount: 0,
      nOperation: 1,
      privateKey: devWallet.privateKey,
      body: transferTo(bob.address, 10n ** 30n),
    });
    await expect(
      b.importBlock(
        forge(block1, (h, ops) => {
          ops.splice(0, ops.length, spendTooMuch);
          h.opsRoot = operationsRoot(
            [decodeOperation(spendTooMuch, createRegistry(), nativeHashes).digest],
            nativeHashes,
          );
        }),
      ),
    ).rejects.toThrow(refused('INVALID_OPERATION_IN_BLOCK'));
    expect(snapshot(b)).toEqual(before);
    await copyBlocks(a, b);
    expect(snapshot(b)).toEqual(snapshot(a));
  });

  it('drops pending operations that the imported block contains', async () => {
    const a = await tempChain();
    const b = await tempChain();
    const op = await a.signAndSubmit({
      optype: 2,
      signer: devWallet.address,
      privateKey: devWallet.privateKey,
      body: transferTo(alice.address, 7n),
    });
    // Signatures are deterministic (RFC 6979): the same request gives the same bytes.
    const bytes = a.buildSignedOperation({
      optype: 2,
      signerAccount: 0,
      nOperation: 1,
      privateKey: devWallet.privateKey,
      body: transferTo(alice.address, 7n),
    });
    await b.submitOperation(bytes, { local: false });
    expect(b.pendingOperations()[0]!.ophash).toBe(op.ophash);
    await a.produceBlock(devWallet.privateKey);
    await copyBlocks(a, b);
    expect(b.pendingCount()).toBe(0);
    expect((await b.findOperation(op.ophash))[0]).toMatchObject({ block: 1 });
  });
});

describe('rollback', () => {
  it('restores the state exactly and returns the operations to the mempool in order', async () => {
    const chain = await tempChain();
    await fundAndActivate(chain, alice, 50n * COIN);
    const atOne = snapshot(chain);
    const sent = [];
    sent.push(
      await chain.signAndSubmit({
        optype: 2,
        signer: alice.address,
        privateKey: alice.privateKey,
        body: transferTo(bob.address, COIN),
      }),
    );
    sent.push(
      await chain.signAndSubmit({
        optype: 5,
        signer: carol.address,
        privateKey: carol.privateKey,
        body: {},
      }),
    );
    await chain.produceBlock(devWallet.privateKey);
    sent.push(
      await chain.signAndSubmit({
        optype: 2,
        signer: alice.address,
        privateKey: alice.privateKey,
        body: transferTo(carol.address, COIN),
      }),
    );
    await chain.produceBlock(devWallet.privateKey);
    const pendingExtra = await chain.signAndSubmit({
      optype: 2,
      signer: devWallet.address,
      privateKey: devWallet.privateKey,
      body: transferTo(bob.address, 3n),
    });
    expect(chain.walletInfo(carol.address).account).toBe(3);

    await chain.rollback(1);
    expect(snapshot(chain)).toEqual(atOne);
    expect(chain.walletInfo(bob.address).state).toBe('unknown wallet');
    const pending = chain.pendingOperations();
    expect(pending.map((o) => o.n_operation)).toEqual([2, 1, 3, 2]);
    expect(pending.map((o) => o.optxt)).toEqual([...sent, pendingExtra].map((o) => o.optxt));
    expect((await chain.findOperation(sent[0]!.ophash))[0]).toMatchObject({
      block: 0,
      maturation: null,
    });
    await expect(chain.blockInfo(2)).rejects.toThrow(expect.objectContaining({ code: 1003 }));

    // Producing again reaches the same balances.
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.walletInfo(carol.address)).toMatchObject({
      balance: String(COIN),
      state: 'normal wallet',
    });
    expect(chain.walletInfo(bob.address).balance).toBe(String(COIN + 3n));
  });

  it('matches a replay of the same blocks for any rollback target (property)', async () => {
    const a = await tempChain();
    await buildHistory(a);
    const snapshots: Array<ReturnType<typeof snapshot>> = [];
    const b = await tempChain();
    snapshots.push(snapshot(b));
    for (let h = 1; h < a.blockCount(); h++) {
      await b.importBlock((await a.getBlockBytes(h))!);
      snapshots.push(snapshot(b));
    }
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: snapshots.length - 1 }), async (target) => {
        const c = await tempChain();
        await copyBlocks(a, c);
        await c.rollback(target);
        const { head, ...rest } = snapshot(c);
        const { head: expectedHead, ...expected } = snapshots[target]!;
        expect(rest).toEqual(expected);
        expect(head).toEqual(expectedHead);
        // The rolled-back chain accepts the same blocks again.
        await copyBlocks(a, c, target + 1);
        expect(snapshot(c)).toEqual(snapshot(a));
      }),
      { numRuns: 4 },
    );
  });

  it('persists: a restart after a rollback keeps the state and the returned operations', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    await fundAndActivate(t.chain, alice, 5n * COIN);
    const atOne = snapshot(t.chain);
    await t.chain.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, COIN),
    });
    await t.chain.produceBlock(devWallet.privateKey);
    await t.chain.rollback(1);
    await t.chain.close();
    const { createChain } = await import('../chain');
    const again = createChain({ dataDir: t.dir, genesis: createDevGenesis() });
    await again.open();
    try {
      expect(snapshot(again)).toEqual(atOne);
      expect(again.pendingCount()).toBe(1);
    } finally {
      await again.close();
    }
  });

  it('refuses targets above the head or deeper than the undo window', async () => {
    const chain = await tempChain();
    await expect(chain.rollback(1)).rejects.toThrow(
      expect.objectContaining({ reason: 'BAD_ROLLBACK' }),
    );
    await chain.rollback(0); // no-op at the head
    for (let i = 0; i < 66; i++) {
      await chain.signAndSubmit({
        optype: 2,
        signer: devWallet.address,
        privateKey: devWallet.privateKey,
        body: transferTo(alice.address, 1n),
      });
      await chain.produceBlock(devWallet.privateKey);
    }
    await expect(chain.rollback(1)).rejects.toThrow(
      expect.objectContaining({ reason: 'ROLLBACK_TOO_DEEP' }),
    );
    await chain.rollback(chain.blockCount() - 1 - 64);
    expect(chain.walletInfo(alice.address).balance).toBe('2');
  });
});
