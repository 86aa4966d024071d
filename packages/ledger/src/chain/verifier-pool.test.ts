import { sha256, u32le } from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import {
  blockSigningHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  operationsRoot,
} from '../block/block';
import { createDevGenesis, genesisHash } from '../genesis';
import { decodeOperation } from '../operation/operation';
import { createRegistry } from '../operation/registry';
import { devWallet, openTempChain, testWallet, transferTo } from '../testing/temp-chain';
import { VerifierPool, type VerifyItem } from './verifier-pool';

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
});
