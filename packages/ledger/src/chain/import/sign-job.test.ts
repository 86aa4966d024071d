import { sha256, utf8ToBytes } from '@chain/crypto';
import { nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import { testWallet } from '../../testing/temp-chain';
import type { SignItem } from './sign-job';
import { VerifierPool } from './verifier-pool';

const pools: VerifierPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function pool(threads: number): VerifierPool {
  const p = new VerifierPool(nativeSecp256k1, threads);
  pools.push(p);
  return p;
}

const keys = ['alice', 'bob', 'carol'].map((label) => testWallet(label).privateKey);
function items(count: number): SignItem[] {
  return Array.from({ length: count }, (_, i) => ({
    hash: sha256(utf8ToBytes(`message ${i}`)),
    privateKey: keys[i % keys.length]!,
  }));
}
const signedHere = (list: readonly SignItem[]) =>
  list.map((item) => nativeSecp256k1.sign(item.hash, item.privateKey));

describe('VerifierPool.sign', () => {
  it('makes on the worker threads the signatures the calling thread makes, in order', async () => {
    const list = items(40);
    const before = list.map((item) => Uint8Array.from(item.privateKey));

    const signatures = await pool(2).sign(list);

    expect(signatures).toEqual(signedHere(list));
    // The caller's keys are its own: only the shared copy is zeroed.
    expect(list.map((item) => item.privateKey)).toEqual(before);
  });

  it('gives null for a key that cannot sign, and signs the others', async () => {
    const list = items(5);
    list[2] = { hash: list[2]!.hash, privateKey: new Uint8Array(32) };
    list[3] = { hash: list[3]!.hash, privateKey: new Uint8Array(31).fill(1) };

    const signatures = await pool(1).sign(list);

    expect(signatures[2]).toBeNull();
    expect(signatures[3]).toBeNull();
    const good = [0, 1, 4].map((i) => list[i]!);
    expect([0, 1, 4].map((i) => signatures[i])).toEqual(signedHere(good));
  });

  it('signs on the calling thread without threads, or below parallelFrom', async () => {
    const list = items(6);
    expect(await pool(0).sign(list)).toEqual(signedHere(list));
    expect(await pool(1).sign(list, { parallelFrom: 10 })).toEqual(signedHere(list));
  });

  it('has a closed pool sign on the calling thread', async () => {
    const p = pool(1);
    await p.sign(items(3));
    await p.close();
    const list = items(4);
    expect(await p.sign(list)).toEqual(signedHere(list));
  });
});
