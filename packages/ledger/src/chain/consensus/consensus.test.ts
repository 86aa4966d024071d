import { bytesToHex } from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { blockSigningHash, decodeBlock, encodeBlock, encodeBlockHeader } from '../../block/block';
import { createDevGenesis, type Genesis, genesisHash } from '../../genesis';
import {
  COIN,
  devWallet,
  fundAndActivate,
  openTempChain,
  testWallet,
  transferTo,
} from '../../testing/temp-chain';
import type { Chain } from '../chain';
import { createBlockProducer } from '../production/producer';
import { ChainStore } from '../storage/store';
import { inTurnProducer } from './consensus';
import { compareBytes, isPreferredTip, recentSignerWindow } from './fork-choice';

// Three producers: dev (account 0), p1 (1), p2 (2). The block after genesis is account 1's turn
// (1 mod 3); every later block is the turn of the account after its parent's producer, wrapping.
const p1 = testWallet('producer 1');
const p2 = testWallet('producer 2');
const alice = testWallet('alice');
const bob = testWallet('bob');

/** The dev network with `others` as further producers, accounts 1, 2, ... in this order. */
function producerGenesis(others: readonly (typeof p1)[]): Genesis {
  const dev = createDevGenesis();
  const accounts = [
    ...dev.accounts,
    ...others.map((w) => ({
      address: w.address,
      publicKey: bytesToHex(w.publicKey),
      balance: 1000n * COIN,
    })),
  ];
  return createDevGenesis({
    network: 'consensus-test',
    accounts,
    producers: [devWallet.address, ...others.map((w) => w.address)],
  });
}

function threeProducerGenesis(): Genesis {
  return producerGenesis([p1, p2]);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function tempChain(genesis?: Genesis): Promise<Chain> {
  const t = await openTempChain(genesis === undefined ? {} : { genesis });
  cleanups.push(t.cleanup);
  return t.chain;
}

async function send(chain: Chain, amount: bigint) {
  return chain.signAndSubmit({
    optype: 2,
    signer: devWallet.address,
    privateKey: devWallet.privateKey,
    body: transferTo(alice.address, amount),
  });
}

/** One block holding one transfer of `amount`, signed with `key`. */
async function block(chain: Chain, amount: bigint, key = devWallet.privateKey) {
  await send(chain, amount);
  const info = await chain.produceBlock(key);
  if (info === undefined) throw new Error('no block produced');
  return info;
}

async function blocksAbove(chain: Chain, height: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let h = height + 1; h < chain.blockCount(); h++) out.push((await chain.getBlockBytes(h))!);
  return out;
}

function pendingAmounts(chain: Chain): string[] {
  return chain.pendingOperations().map((op) => op.amount);
}

describe('fork choice rule', () => {
  it('prefers the heavier tip, and the lower hash between equal weights', () => {
    const low = new Uint8Array(32).fill(1);
    const high = new Uint8Array(32).fill(2);
    expect(isPreferredTip({ weight: 5, hash: high }, { weight: 4, hash: low })).toBe(true);
    expect(isPreferredTip({ weight: 4, hash: low }, { weight: 5, hash: high })).toBe(false);
    expect(isPreferredTip({ weight: 4, hash: low }, { weight: 4, hash: high })).toBe(true);
    expect(isPreferredTip({ weight: 4, hash: high }, { weight: 4, hash: low })).toBe(false);
    expect(isPreferredTip({ weight: 4, hash: low }, { weight: 4, hash: low })).toBe(false);
    expect(compareBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBeLessThan(0);
  });

  it('sizes the recent-signer window as EIP-225 does: floor(n/2) blocks back', () => {
    // A producer signs at most one of every floor(n/2)+1 consecutive blocks.
    expect([1, 2, 3, 4, 5, 21].map(recentSignerWindow)).toEqual([0, 1, 1, 2, 2, 10]);
  });
});

describe('rotation', () => {
  it("puts in turn the successor of the parent block's producer, wrapping around", () => {
    const producers = [0, 3, 5];
    const after = (parentProducer: number | undefined, height = 7) =>
      inTurnProducer(producers, { height, parentProducer });
    expect([after(0), after(3), after(5)]).toEqual([3, 5, 0]);
    // A parent producer that has left the set: the first producer above it, wrapping.
    expect([after(4), after(9)]).toEqual([5, 0]);
    // Right after genesis there is no parent producer: producers[h mod n].
    expect([after(undefined, 1), after(undefined, 2), after(undefined, 3)]).toEqual([3, 5, 0]);
    expect(inTurnProducer([], { height: 1, parentProducer: 0 })).toBeUndefined();
    expect(inTurnProducer([4], { height: 9, parentProducer: 4 })).toBe(4);
  });

  const producerSets = fc
    .uniqueArray(fc.nat(1000), { minLength: 2, maxLength: 12 })
    .map((accounts) => [...accounts].sort((a, b) => a - b));

  it('never puts in turn the producer of the parent block (so, with 2 or 3, it is never barred)', () => {
    fc.assert(
      fc.property(producerSets, fc.nat(), fc.nat(), (producers, pick, height) => {
        const parentProducer = producers[pick % producers.length]!;
        expect(inTurnProducer(producers, { height, parentProducer })).not.toBe(parentProducer);
      }),
    );
  });

  it('after one out-of-turn block in a chain in phase, the producer in turn may sign', () => {
    fc.assert(
      fc.property(producerSets, fc.nat(), fc.nat(), (producers, last, pick) => {
        const n = producers.length;
        const window = recentSignerWindow(n);
        // The last `window` blocks were signed in turn, ending with producers[last mod n].
        const recent = Array.from({ length: window }, (_, k) => {
          const index = (((last - (window - 1) + k) % n) + n) % n;
          return producers[index]!;
        });
        const parentProducer = recent[recent.length - 1]!;
        const inTurn = inTurnProducer(producers, { height: 0, parentProducer });
        // The in-turn producer stays silent; one the recent-signer rule allows steps in.
        const allowed = producers.filter((a) => a !== inTurn && !recent.includes(a));
        fc.pre(allowed.length > 0);
        const outOfTurn = allowed[pick % allowed.length]!;
        const recentAfter = [...recent.slice(1), outOfTurn];
        const next = inTurnProducer(producers, { height: 0, parentProducer: outOfTurn });
        expect(recentAfter).not.toContain(next);
      }),
    );
  });
});

describe('chain weight', () => {
  it('adds 2 per in-turn block, 1 per out-of-turn block, through a restart, a recount and a rollback', async () => {
    const genesis = threeProducerGenesis();
    const t = await openTempChain({ genesis });
    cleanups.push(t.cleanup);
    const chain = t.chain;
    expect(chain.head().weight).toBe(0);
    expect(chain.inTurnProducer()).toBe(1);
    await block(chain, 1n, p1.privateKey); // height 1: 1 mod 3 = p1 in turn
    expect(chain.head().weight).toBe(2);
    expect(chain.inTurnProducer()).toBe(2);
    await block(chain, 2n, devWallet.privateKey); // after p1, p2's turn: dev out of turn
    expect(chain.head().weight).toBe(3);
    expect(chain.inTurnProducer()).toBe(1);
    await block(chain, 3n, p1.privateKey); // after dev, p1's turn (h mod n would say dev's)
    expect(chain.head().weight).toBe(5);
    await block(chain, 4n, p2.privateKey); // after p1, p2's turn (h mod n would say p1's)
    expect(chain.head().weight).toBe(7);
    expect(chain.inTurnProducer()).toBe(0);
    await block(chain, 5n, p1.privateKey); // after p2, dev's turn (wrapping): p1 out of turn
    expect(chain.head().weight).toBe(8);
    await chain.close();

    const { createChain } = await import('../chain');
    const reopen = async () => {
      const reopened = createChain({ dataDir: t.dir, genesis });
      await reopened.open();
      return reopened;
    };
    // A data directory without a recorded weight gets it counted again from its blocks.
    const store = await ChainStore.open(t.dir);
    await store.meta.del('weight');
    await store.close();
    let reopened = await reopen();
    try {
      expect(reopened.head().weight).toBe(8);
      expect(reopened.inTurnProducer()).toBe(2); // block 5 is p1's
      await reopened.rollback(2); // takes off 2 + 2 + 1
      expect(reopened.head().weight).toBe(3);
      expect(reopened.inTurnProducer()).toBe(1);
    } finally {
      await reopened.close();
    }
    reopened = await reopen();
    try {
      expect(reopened.head().weight).toBe(3);
    } finally {
      await reopened.close();
    }
  });
});

describe('recent-signer rule', () => {
  it('refuses to produce a block whose producer signed the previous one (3 producers)', async () => {
    const chain = await tempChain(threeProducerGenesis());
    await block(chain, 1n, p1.privateKey);
    expect(chain.maySign(1)).toBe(false);
    expect(chain.maySign(0)).toBe(true);
    await send(chain, 2n);
    await expect(chain.produceBlock(p1.privateKey)).rejects.toMatchObject({
      code: 1021,
      reason: 'RECENT_SIGNER',
    });
    expect(chain.blockCount()).toBe(2);
    await chain.produceBlock(devWallet.privateKey);
    expect(chain.blockCount()).toBe(3);
    expect(chain.maySign(1)).toBe(true);
  });

  it('refuses to import a block whose producer signed the previous one', async () => {
    const genesis = threeProducerGenesis();
    const a = await tempChain(genesis);
    await block(a, 1n, p1.privateKey);
    await block(a, 2n, devWallet.privateKey);
    const b = await tempChain(genesis);
    await b.importBlock((await a.getBlockBytes(1))!);
    // Block 2 re-signed by p1 (account 1), who signed block 1.
    const original = decodeBlock((await a.getBlockBytes(2))!, nativeHashes);
    const headerBytes = encodeBlockHeader({ ...original.header, producer: 1 });
    const signature = nativeSecp256k1.sign(
      blockSigningHash(genesisHash(genesis), headerBytes, nativeHashes),
      p1.privateKey,
    );
    const forged = encodeBlock(headerBytes, signature, original.operations);
    await expect(b.importBlock(forged)).rejects.toMatchObject({
      code: 1003,
      reason: 'BLOCK_BY_RECENT_SIGNER',
    });
    expect(b.blockCount()).toBe(2);
    await b.importBlock((await a.getBlockBytes(2))!);
    expect(b.head()).toEqual(a.head());
  });
});

describe('reorganize', () => {
  /** Two chains of the dev network sharing block 1 (alice funded and active), then diverging. */
  async function forked() {
    const a = await tempChain();
    const b = await tempChain();
    await fundAndActivate(a, alice, 100n * COIN);
    await b.importBlock((await a.getBlockBytes(1))!);
    return { a, b };
  }

  const aliceToBob = (chain: Chain, amount: bigint) =>
    chain.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(bob.address, amount),
    });

  it('adopts a heavier branch, returning the dropped operations to the mempool', async () => {
    const { a, b } = await forked();
    await block(a, 10n);
    await block(a, 11n);
    await aliceToBob(b, 20n);
    await b.produceBlock(devWallet.privateKey);
    await aliceToBob(b, 21n); // pending on b only
    const returned: Uint8Array[] = [];
    b.onPending((bytes, origin) => {
      if (origin === 'returned') returned.push(bytes);
    });
    const result = await b.reorganize(1, await blocksAbove(a, 1));
    expect(result.adopted).toBe(true);
    expect(b.head()).toEqual(a.head());
    expect(b.stateRoot()).toEqual(a.stateRoot());
    expect(result.head).toEqual(a.head());
    // alice's transfers, one from the dropped block and one pending, are still valid: pending.
    expect(pendingAmounts(b).sort()).toEqual(['20', '21']);
    expect(returned).toHaveLength(1);
    expect(b.describeOperation(returned[0]!).amount).toBe('20');
    expect(await b.blockOperations(2)).toEqual(await a.blockOperations(2));
    // and they are mined on the adopted chain
    await b.produceBlock(devWallet.privateKey);
    expect((await b.blockOperations(4)).map((op) => op.amount)).toEqual(['20', '21']);
  });

  it('keeps its own chain against a lighter branch, and the branch operations stay pending', async () => {
    const { a, b } = await forked();
    await block(a, 10n);
    await block(a, 11n);
    const before = { head: a.head(), root: a.stateRoot() };
    await aliceToBob(b, 20n);
    await b.produceBlock(devWallet.privateKey);
    const result = await a.reorganize(1, await blocksAbove(b, 1));
    expect(result.adopted).toBe(false);
    expect(a.head()).toEqual(before.head);
    expect(a.stateRoot()).toEqual(before.root);
    expect(await a.blockOperations(2)).toHaveLength(1);
    // The branch's operation, valid here too, is kept: nothing a peer showed us is lost.
    expect(pendingAmounts(a)).toEqual(['20']);
  });

  it('tells reorganisation listeners the depth of each adopted branch, and times imports', async () => {
    const { a, b } = await forked();
    const importSeconds: number[] = [];
    b.onImportTimed((seconds) => importSeconds.push(seconds));
    await block(a, 10n);
    await b.importBlock((await a.getBlockBytes(2))!);
    expect(importSeconds).toHaveLength(1);
    expect(importSeconds[0]).toBeGreaterThan(0);
    await block(a, 11n);
    await block(a, 12n);
    await aliceToBob(b, 20n);
    await b.produceBlock(devWallet.privateKey);
    const dropped = await blocksAbove(b, 2);
    const depths: number[] = [];
    b.onReorganized((depth) => depths.push(depth));
    expect((await b.reorganize(2, await blocksAbove(a, 2))).adopted).toBe(true);
    expect(depths).toEqual([1]);
    // A branch that is not adopted (its own old, lighter one) is no reorganisation.
    expect((await b.reorganize(2, dropped)).adopted).toBe(false);
    expect(depths).toEqual([1]);
  });

  it('breaks a tie of equal weight by the lower block hash, on both sides alike', async () => {
    const { a, b } = await forked();
    await block(a, 10n);
    await block(b, 20n);
    const hashA = a.head().hash;
    const hashB = b.head().hash;
    const aWins = Buffer.compare(Buffer.from(hashA), Buffer.from(hashB)) < 0;
    const [loser, winner] = aWins ? [b, a] : [a, b];
    const winnerHead = winner.head();
    // The winner keeps its block; the loser adopts the winner's.
    expect((await winner.reorganize(1, await blocksAbove(loser, 1))).adopted).toBe(false);
    expect((await loser.reorganize(1, await blocksAbove(winner, 1))).adopted).toBe(true);
    expect(loser.head()).toEqual(winnerHead);
    expect(winner.head()).toEqual(winnerHead);
  });

  it('prefers an in-turn block to an out-of-turn one at the same height', async () => {
    const genesis = threeProducerGenesis();
    const a = await tempChain(genesis);
    const b = await tempChain(genesis);
    await block(a, 1n, p1.privateKey); // height 1, p1 in turn: weight 2
    await block(b, 2n, devWallet.privateKey); // height 1, dev out of turn: weight 1
    expect((await b.reorganize(0, await blocksAbove(a, 0))).adopted).toBe(true);
    expect(b.head()).toEqual(a.head());
    expect((await a.reorganize(0, [])).adopted).toBe(false);
    expect(a.head().weight).toBe(2);
  });

  it('writes a branch as an import run does: synced once at its end, and durable when it resolves', async () => {
    const a = await tempChain();
    const onDisk = await openTempChain();
    cleanups.push(onDisk.cleanup);
    const b = onDisk.chain;
    await fundAndActivate(a, alice, 100n * COIN);
    await b.importBlock((await a.getBlockBytes(1))!);
    for (let i = 0; i < 5; i++) await block(a, 10n + BigInt(i));
    await block(b, 20n);
    const branch = await blocksAbove(a, 1);
    const writeNow = ChainStore.prototype.writeNow;
    let syncedWrites = 0;
    ChainStore.prototype.writeNow = function (this: ChainStore, batches, sync) {
      if (sync) syncedWrites++;
      return writeNow.call(this, batches, sync);
    };
    try {
      expect((await b.reorganize(1, branch)).adopted).toBe(true);
    } finally {
      ChainStore.prototype.writeNow = writeNow;
    }
    // The rollback's batch and the branch's last block (each of 5 blocks synced: 6).
    expect(syncedWrites).toBe(2);
    await b.close();
    const reopened = await openTempChain({ dataDir: onDisk.dir });
    cleanups.push(reopened.cleanup);
    expect(reopened.chain.head()).toEqual(a.head());
    expect(reopened.chain.stateRoot()).toEqual(a.stateRoot());
  });

  it('restores its chain and rejects a branch holding an invalid block', async () => {
    const { a, b } = await forked();
    await block(a, 10n);
    await block(a, 11n);
    await block(b, 20n);
    const before = { head: b.head(), root: b.stateRoot() };
    const branch = await blocksAbove(a, 1);
    const bad = branch[1]!.slice();
    bad[bad.length - 1]! ^= 1; // breaks the operation's signature
    await expect(b.reorganize(1, [branch[0]!, bad])).rejects.toMatchObject({ code: 1003 });
    expect(b.head()).toEqual(before.head);
    expect(b.stateRoot()).toEqual(before.root);
  });

  it('refuses a fork point at or above the head, or deeper than the rollback limit', async () => {
    const { a } = await forked();
    await expect(a.reorganize(1, [])).rejects.toMatchObject({ reason: 'BAD_FORK_POINT' });
    const shallow = await tempChain();
    const t = await openTempChain({ maxRollback: 2 });
    cleanups.push(t.cleanup);
    for (let i = 1n; i <= 4n; i++) await block(t.chain, i);
    await expect(t.chain.reorganize(1, await blocksAbove(shallow, 0))).rejects.toMatchObject({
      reason: 'ROLLBACK_TOO_DEEP',
    });
    expect(t.chain.blockCount()).toBe(5);
  });
});

describe('block producer across producers', () => {
  function nextBlock(chain: Chain) {
    return new Promise<{ at: number }>((resolve) => {
      const off = chain.onBlock(() => {
        off();
        resolve({ at: Date.now() });
      });
    });
  }

  it('produces at once in turn, and out of turn only after the delay', async () => {
    const chain = await tempChain(threeProducerGenesis());
    const producer = createBlockProducer({
      chain,
      blockTimeMs: 0,
      producerKeys: () => [devWallet.privateKey],
      outOfTurnDelayMs: 300,
      outOfTurnWiggleMs: 0,
    });
    producer.start();
    cleanups.unshift(() => producer.close());
    // Height 1 is p1's turn: dev steps in after 300 ms.
    const started = Date.now();
    const produced = nextBlock(chain);
    await send(chain, 1n);
    const first = await produced;
    expect(first.at - started).toBeGreaterThanOrEqual(290);
    expect(chain.head()).toMatchObject({ height: 1, weight: 1 });
    // Block 2 is p1's turn (it follows dev), and dev signed block 1: the recent-signer rule keeps
    // dev waiting.
    await send(chain, 2n);
    await new Promise((r) => setTimeout(r, 600));
    expect(chain.blockCount()).toBe(2);
    expect(chain.pendingCount()).toBe(1);
  });

  it('with two producers, is back in phase right after an out-of-turn block', async () => {
    const chain = await tempChain(producerGenesis([p1]));
    // Block 1 is p1's turn (1 mod 2); dev signs it out of turn. Under h mod n, block 2 would be
    // dev's turn, which the recent-signer rule bars: every later block would come out of turn.
    await block(chain, 1n, devWallet.privateKey);
    expect(chain.head().weight).toBe(1);
    const outOfTurnDelayMs = 3000;
    const producer = createBlockProducer({
      chain,
      blockTimeMs: 0,
      producerKeys: () => [devWallet.privateKey, p1.privateKey],
      outOfTurnDelayMs,
      outOfTurnWiggleMs: 0,
    });
    producer.start();
    cleanups.unshift(() => producer.close());
    const started = Date.now();
    for (let i = 0n; i < 4n; i++) {
      const produced = nextBlock(chain);
      await send(chain, 10n + i);
      await produced;
    }
    // Four blocks, all in turn: none waited out the out-of-turn delay.
    expect(Date.now() - started).toBeLessThan(outOfTurnDelayMs);
    expect(chain.head()).toMatchObject({ height: 5, weight: 1 + 4 * 2 });
    const signers: number[] = [];
    for (let h = 1; h <= 5; h++)
      signers.push(chain.inspectBlock((await chain.getBlockBytes(h))!).producer);
    expect(signers).toEqual([0, 1, 0, 1, 0]);
  }, 15_000);

  it('produces in turn without waiting, and not at all while mayProduce says no', async () => {
    const chain = await tempChain(threeProducerGenesis());
    let allowed = false;
    const producer = createBlockProducer({
      chain,
      blockTimeMs: 0,
      producerKeys: () => [p1.privateKey],
      outOfTurnDelayMs: 5000,
      mayProduce: () => allowed,
      mayProduceRetryMs: 20,
    });
    producer.start();
    cleanups.unshift(() => producer.close());
    await send(chain, 1n);
    await new Promise((r) => setTimeout(r, 150));
    expect(chain.blockCount()).toBe(1);
    const started = Date.now();
    const produced = nextBlock(chain);
    allowed = true;
    const first = await produced;
    expect(first.at - started).toBeLessThan(1000);
    expect(chain.head().weight).toBe(2);
  });
});
