import { sha256, u32le } from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import {
  blockSigningHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  operationsRoot,
} from '../../block/block';
import { createDevGenesis, genesisHash } from '../../genesis';
import { createRegistry } from '../../operation/ledger-registry';
import { decodeOperation, operationSigningHash } from '../../operation/operation';
import { devWallet, openTempChain, testWallet, transferTo } from '../../testing/temp-chain';
import {
  type AheadContext,
  SMALL_AHEAD_ITEMS,
  SmallAheadBatches,
  type VerifiedAhead,
  VerifierPool,
  type VerifyItem,
  verifyBlockAhead,
} from './verifier-pool';

const pools: VerifierPool[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
  while (cleanups.length > 0) await cleanups.pop()!();
});

function items(count: number, bad: Set<number>): VerifyItem[] {
  const publicKey = testWallet('pool').publicKey;
  const wrongKey = testWallet('other').publicKey;
  return Array.from({ length: count }, (_, i) => {
    const hash = sha256(u32le(i));
    const signature = nativeSecp256k1.sign(hash, testWalletKey);
    return { signature, hash, publicKey: bad.has(i) ? wrongKey : publicKey };
  });
}
const testWalletKey = testWallet('pool').privateKey;

/**
 * `count` blocks of `perBlock` transfers from the dev wallet, made by one chain; a second chain
 * with a verifier thread imports them all queued at once and must end on the same state.
 */
async function transferBlocks(
  label: string,
  count: number,
  perBlock: number,
): Promise<Uint8Array[]> {
  const a = await openTempChain();
  cleanups.push(a.cleanup);
  const receiver = testWallet(label);
  for (let b = 0; b < count; b++) {
    await Promise.all(
      Array.from({ length: perBlock }, (_, i) =>
        a.chain.signAndSubmit({
          optype: 2,
          signer: devWallet.address,
          privateKey: devWallet.privateKey,
          body: transferTo(receiver.address, BigInt(b * 1000 + i + 1)),
        }),
      ),
    );
    await a.chain.produceBlock(devWallet.privateKey);
  }
  const blocks: Uint8Array[] = [];
  for (let h = 1; h <= count; h++) blocks.push((await a.chain.getBlockBytes(h))!);

  const b = await openTempChain({ verifyThreads: 1 });
  cleanups.push(b.cleanup);
  expect(await b.chain.importBlocks(blocks)).toEqual({ imported: count });
  expect(b.chain.stateRoot()).toEqual(a.chain.stateRoot());
  return blocks;
}

describe('VerifierPool', () => {
  it('agrees with single-threaded verification on large mixed batches', async () => {
    const pool = new VerifierPool(nativeSecp256k1, 2);
    pools.push(pool);
    const bad = new Set([0, 150, 299, 420]);
    const batch = items(500, bad);
    const results = await pool.verify(batch);
    expect(results).toEqual(batch.map((_, i) => !bad.has(i)));
    // A high-S twin of a valid signature is refused too (libsecp256k1 in the workers).
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = batch.map((item) => {
      const s = BigInt(`0x${Buffer.from(item.signature.subarray(32)).toString('hex')}`);
      const signature = item.signature.slice();
      signature.set(Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex'), 32);
      return { ...item, signature };
    });
    expect((await pool.verify(highS)).every((ok) => !ok)).toBe(true);
  });

  it('verifies small batches and works with no threads', async () => {
    const none = new VerifierPool(nativeSecp256k1, 0);
    pools.push(none);
    expect(await none.verify(items(200, new Set([3])))).toEqual(
      Array.from({ length: 200 }, (_, i) => i !== 3),
    );
  });

  it('makes importBlock refuse a bad signature anywhere in a large block', async () => {
    const a = await openTempChain();
    cleanups.push(a.cleanup);
    const alice = testWallet('alice');
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        a.chain.signAndSubmit({
          optype: 2,
          signer: devWallet.address,
          privateKey: devWallet.privateKey,
          body: transferTo(alice.address, BigInt(i + 1)),
        }),
      ),
    );
    await a.chain.produceBlock(devWallet.privateKey);
    const good = (await a.chain.getBlockBytes(1))!;
    const block = decodeBlock(good, nativeHashes);
    const ops = block.operations.map((o) => Uint8Array.from(o));
    ops[250]![ops[250]!.length - 3]! ^= 1;
    const registry = createRegistry();
    const header = {
      ...block.header,
      opsRoot: operationsRoot(
        ops.map((o) => decodeOperation(o, registry, nativeHashes).digest),
        nativeHashes,
      ),
    };
    const headerBytes = encodeBlockHeader(header);
    const signature = nativeSecp256k1.sign(
      blockSigningHash(genesisHash(createDevGenesis()), headerBytes, nativeHashes),
      devWallet.privateKey,
    );
    const b = await openTempChain({ verifyThreads: 1 });
    cleanups.push(b.cleanup);
    await expect(b.chain.importBlock(encodeBlock(headerBytes, signature, ops))).rejects.toThrow(
      expect.objectContaining({
        reason: 'BAD_OPERATION_SIGNATURE',
        message: 'operation 250 has an invalid signature',
      }),
    );
    await b.chain.importBlock(good);
    expect(b.chain.stateRoot()).toEqual(a.chain.stateRoot());
  });

  it('verifies background batches on the workers and settles them with the calling thread', async () => {
    const pool = new VerifierPool(nativeSecp256k1, 1);
    pools.push(pool);
    const batches = [new Set([5]), new Set<number>(), new Set([0, 255])].map((bad) => ({
      bad,
      batch: items(256, bad),
    }));

    const started = batches.map(({ batch }) => pool.background(batch));
    const foreground = await pool.verify(items(300, new Set([299])));
    const settled = await Promise.all(started.map((b) => b.settle()));

    expect(foreground).toEqual(Array.from({ length: 300 }, (_, i) => i !== 299));
    settled.forEach((results, k) => {
      expect(results).toEqual(batches[k]!.batch.map((_, i) => !batches[k]!.bad.has(i)));
    });
  });

  it('helpWhile has the calling thread check background batches until its promise settles', async () => {
    let onCallingThread = 0;
    const counting = {
      ...nativeSecp256k1,
      verify: (...args: Parameters<typeof nativeSecp256k1.verify>) => {
        onCallingThread++;
        return nativeSecp256k1.verify(...args);
      },
    };
    const pool = new VerifierPool(counting, 1);
    pools.push(pool);
    const bad = new Set([5, 600]);
    const pending = pool.background(items(1000, bad));
    expect(onCallingThread).toBe(0);
    // 1,000 checks take far longer than 30 ms on one worker: the calling thread helps meanwhile.
    const value = await pool.helpWhile(new Promise((resolve) => setTimeout(() => resolve(42), 30)));
    expect(value).toBe(42);
    expect(onCallingThread).toBeGreaterThan(0);
    expect(await pending.settle()).toEqual(Array.from({ length: 1000 }, (_, i) => !bad.has(i)));
    // A rejection comes through; with nothing left to check it is simply awaited.
    await expect(pool.helpWhile(Promise.reject(new Error('disk full')))).rejects.toThrow(
      'disk full',
    );
  });

  it('closes while its worker is inside libsecp256k1, again and again, without aborting', async () => {
    // A worker terminated inside the binding took the whole process down (a C++ exception).
    const batch = items(300, new Set([9]));
    for (let round = 0; round < 10; round++) {
      const pool = new VerifierPool(nativeSecp256k1, 1);
      const pending = pool.background(batch);
      await new Promise((resolve) => setTimeout(resolve, round));
      await pool.close();
      expect(await pending.settle()).toEqual(Array.from({ length: 300 }, (_, i) => i !== 9));
    }
  });

  it('settles background batches correctly after close() stopped the workers', async () => {
    const pool = new VerifierPool(nativeSecp256k1, 1);
    const pending = pool.background(items(400, new Set([7, 399])));
    await pool.close();

    expect(await pending.settle()).toEqual(
      Array.from({ length: 400 }, (_, i) => i !== 7 && i !== 399),
    );
    // Closed, it still verifies, on the calling thread.
    expect(await pool.verify(items(200, new Set([1])))).toEqual(
      Array.from({ length: 200 }, (_, i) => i !== 1),
    );
  });

  it('verifyBlockAhead records the key of each valid signature it checked, and nothing else', async () => {
    const pool = new VerifierPool(nativeSecp256k1, 1);
    pools.push(pool);
    const a = await openTempChain();
    cleanups.push(a.cleanup);
    const alice = testWallet('alice ahead');
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        a.chain.signAndSubmit({
          optype: 2,
          signer: devWallet.address,
          privateKey: devWallet.privateKey,
          body: transferTo(alice.address, BigInt(i + 1)),
        }),
      ),
    );
    await a.chain.produceBlock(devWallet.privateKey);
    const block = decodeBlock((await a.chain.getBlockBytes(1))!, nativeHashes);
    const operations = [...block.operations];
    // One signature forged.
    const forged = Uint8Array.from(operations[17]!);
    forged[forged.length - 5]! ^= 1;
    operations[17] = forged;
    const ahead: VerifiedAhead = { verifiedKeys: new Array(operations.length) };
    const { verifiedKeys } = ahead;
    const gHash = genesisHash(createDevGenesis());
    const producer = {
      signature: block.signature,
      hash: blockSigningHash(gHash, block.headerBytes, nativeHashes),
      publicKey: devWallet.publicKey,
    };

    const ctx: AheadContext = {
      pool,
      small: new SmallAheadBatches(pool),
      // Operation 5's key is not known yet (say, an activation earlier in the queue): left alone.
      itemOf: (operation) =>
        operation === operations[5]
          ? null
          : {
              signature: operation.subarray(operation.length - 64),
              hash: operationSigningHash(
                gHash,
                operation.subarray(0, operation.length - 64),
                nativeHashes,
              ),
              publicKey: devWallet.publicKey,
            },
    };
    await verifyBlockAhead(operations, () => producer, ahead, ctx).settle();

    expect(verifiedKeys.filter((key) => key === devWallet.publicKey)).toHaveLength(198);
    expect(verifiedKeys[17]).toBeUndefined();
    expect(verifiedKeys[5]).toBeUndefined();
    expect(ahead.producerKey).toBe(devWallet.publicKey);

    // A producer signature that does not verify records no key.
    const forgedProducer = { ...producer, signature: Uint8Array.from(producer.signature) };
    forgedProducer.signature[10]! ^= 1;
    const again: VerifiedAhead = { verifiedKeys: new Array(operations.length) };
    await verifyBlockAhead(operations, () => forgedProducer, again, ctx).settle();
    expect(again.producerKey).toBeUndefined();
  });

  it('checks small blocks ahead several at a time, each block recording only its own valid keys', async () => {
    const pool = new VerifierPool(nativeSecp256k1, 1);
    pools.push(pool);
    const handOvers: number[] = [];
    const background = pool.background.bind(pool);
    pool.background = (items, split) => {
      handOvers.push(items.length);
      return background(items, split);
    };
    const gHash = genesisHash(createDevGenesis());
    const blocks = (await transferBlocks('alice small ahead', 8, 1)).map((bytes) =>
      decodeBlock(bytes, nativeHashes),
    );
    const itemOf = (operation: Uint8Array) => ({
      signature: operation.subarray(operation.length - 64),
      hash: operationSigningHash(gHash, operation.subarray(0, operation.length - 64), nativeHashes),
      publicKey: devWallet.publicKey,
    });
    const producerOf = (block: (typeof blocks)[number], forged: boolean) => () => {
      const signature = Uint8Array.from(block.signature);
      if (forged) signature[10]! ^= 1;
      return {
        signature,
        hash: blockSigningHash(gHash, block.headerBytes, nativeHashes),
        publicKey: devWallet.publicKey,
      };
    };
    // Block 2's operation and block 5's producer signature forged.
    const operationsOf = (b: number) =>
      blocks[b]!.operations.map((op) => {
        if (b !== 2) return op;
        const forged = Uint8Array.from(op);
        forged[forged.length - 5]! ^= 1;
        return forged;
      });
    const ctx: AheadContext = { pool, small: new SmallAheadBatches(pool), itemOf };
    const aheads: VerifiedAhead[] = blocks.map(() => ({ verifiedKeys: [undefined] }));
    const settles = blocks.map((block, b) =>
      verifyBlockAhead(operationsOf(b), producerOf(block, b === 5), aheads[b]!, ctx),
    );
    // Eight blocks of two signatures: one hand-over when the batch is full, before any settles.
    expect(2 * blocks.length).toBe(SMALL_AHEAD_ITEMS);
    expect(handOvers).toEqual([SMALL_AHEAD_ITEMS]);
    for (const settle of settles) await settle.settle();
    aheads.forEach((ahead, b) => {
      expect(ahead.verifiedKeys[0], `block ${b}'s operation`).toBe(
        b === 2 ? undefined : devWallet.publicKey,
      );
      expect(ahead.producerKey, `block ${b}'s producer`).toBe(
        b === 5 ? undefined : devWallet.publicKey,
      );
    });
    // A block settled before its batch is full hands the batch over then.
    const late: VerifiedAhead = { verifiedKeys: [undefined] };
    await verifyBlockAhead(operationsOf(0), producerOf(blocks[0]!, false), late, ctx).settle();
    expect(handOvers).toEqual([SMALL_AHEAD_ITEMS, 2]);
    expect(late).toEqual({ verifiedKeys: [devWallet.publicKey], producerKey: devWallet.publicKey });
  });

  it('imports a queue of one-operation blocks, and refuses a forged producer signature checked ahead in a run', async () => {
    const blocks = await transferBlocks('alice small blocks', 6, 1);

    // The last block signed by a key that is not the producer's: refused even when queued.
    const c = await openTempChain({ verifyThreads: 1 });
    cleanups.push(c.cleanup);
    const last = decodeBlock(blocks[5]!, nativeHashes);
    const signature = nativeSecp256k1.sign(
      blockSigningHash(genesisHash(createDevGenesis()), last.headerBytes, nativeHashes),
      testWallet('not the producer').privateKey,
    );
    const run = await c.chain.importBlocks([
      ...blocks.slice(0, 5),
      encodeBlock(last.headerBytes, signature, last.operations),
    ]);
    expect(run.imported).toBe(5);
    expect(run.refused?.error).toMatchObject({ reason: 'BAD_BLOCK_SIGNATURE' });
    expect(c.chain.blockCount()).toBe(6);
  });

  it('imports a queue of blocks checked ahead, and refuses the one with a bad signature', async () => {
    const blocks = await transferBlocks('alice queue', 3, 150);

    // A block whose operations root matches a forged signature: refused even when queued.
    const c = await openTempChain({ verifyThreads: 1 });
    cleanups.push(c.cleanup);
    const third = decodeBlock(blocks[2]!, nativeHashes);
    const forgedOps = third.operations.map((o) => Uint8Array.from(o));
    forgedOps[140]![forgedOps[140]!.length - 9]! ^= 1;
    const registry = createRegistry();
    const headerBytes = encodeBlockHeader({
      ...third.header,
      opsRoot: operationsRoot(
        forgedOps.map((o) => decodeOperation(o, registry, nativeHashes).digest),
        nativeHashes,
      ),
    });
    const signature = nativeSecp256k1.sign(
      blockSigningHash(genesisHash(createDevGenesis()), headerBytes, nativeHashes),
      devWallet.privateKey,
    );
    const run = await c.chain.importBlocks([
      blocks[0]!,
      blocks[1]!,
      encodeBlock(headerBytes, signature, forgedOps),
    ]);
    expect(run.imported).toBe(2);
    expect(run.refused?.error).toMatchObject({
      reason: 'BAD_OPERATION_SIGNATURE',
      message: 'operation 140 has an invalid signature',
    });
    expect(c.chain.blockCount()).toBe(3);
  });
});
