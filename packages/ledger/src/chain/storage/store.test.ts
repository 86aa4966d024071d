import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opHashIdentityOf } from '@chain/ophash';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChainStore,
  heightKey,
  operationIndexKey,
  operationKey,
  operationKeyOfIdentity,
  operationKeyRange,
  prefixOf,
} from './store';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function openStore(): Promise<ChainStore> {
  const dir = await mkdtemp(join(tmpdir(), 'chain-store-'));
  dirs.push(dir);
  return ChainStore.open(dir);
}

describe('ChainBatch (sublevel prefixes applied by the batch itself)', () => {
  it('writes what each sublevel reads back, byte and string keys alike, and deletes', async () => {
    const store = await openStore();
    const utf8Keys = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
    const samples = fc.sample(
      fc.tuple(utf8Keys, fc.uint8Array({ minLength: 1, maxLength: 40 })),
      50,
    );
    const batch = store.batch();
    samples.forEach(([key, value], i) => {
      batch.put(key, value, { sublevel: store.spaces });
      batch.put(heightKey(i), value, { sublevel: store.accounts });
    });
    batch.put('head', Uint8Array.of(7), { sublevel: store.meta });
    batch.del(heightKey(0), { sublevel: store.accounts });
    await store.commit(batch);

    const last = new Map(samples);
    for (const [key, value] of last) expect(await store.read(store.spaces, key)).toEqual(value);
    expect(await store.read(store.accounts, heightKey(0))).toBeUndefined();
    for (let i = 1; i < samples.length; i++) {
      expect(await store.read(store.accounts, heightKey(i))).toEqual(samples[i]![1]);
    }
    expect(await store.read(store.meta, 'head')).toEqual(Uint8Array.of(7));
    // Nothing leaked into another sublevel: each holds exactly its own keys.
    expect((await store.spaces.keys().all()).sort()).toEqual([...last.keys()].sort());
    expect(await store.accounts.keys().all()).toHaveLength(samples.length - 1);
    expect(await store.meta.keys().all()).toEqual(['head']);
    await store.close();
  });
});

describe('the operation index (signer order, written without building its key twice)', () => {
  const cases = () => {
    const sample = fc.sample(
      fc.tuple(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
      ),
      50,
    );
    sample.push(
      [0xffffffff, 0xffffffff, new Uint8Array(20).fill(0xff)],
      [0, 0, new Uint8Array(20)],
    );
    return sample;
  };

  it('finds each operation by its ophash identity, the prefixed key being the same bytes', async () => {
    const store = await openStore();
    const sample = cases();
    const batch = store.batch();
    sample.forEach(([signer, nOperation, digest], i) => {
      const digestHex = Buffer.from(digest).toString('hex');
      const key = operationIndexKey(store.opIndex, signer, nOperation, digestHex);
      expect(Buffer.from(key)).toEqual(
        Buffer.concat([prefixOf(store.opIndex), operationKey(signer, nOperation, digestHex)]),
      );
      batch.putPrefixed(key, heightKey(i));
    });
    await store.commit(batch);
    const last = new Map(sample.map(([s, n, d], i) => [`${s}:${n}:${d.join()}`, i]));
    for (const [signer, nOperation, digest] of sample) {
      const identity = opHashIdentityOf(signer, nOperation, Buffer.from(digest).toString('hex'));
      const i = last.get(`${signer}:${nOperation}:${digest.join()}`)!;
      expect(await store.read(store.opIndex, operationKeyOfIdentity(identity))).toEqual(
        heightKey(i),
      );
    }
    expect(await store.opIndex.keys().all()).toHaveLength(last.size);
    await store.close();
  });

  it("keeps a signer's operations in n_operation order, each n_operation a range of its own", async () => {
    const store = await openStore();
    const batch = store.batch();
    const digest = (n: number) => Buffer.alloc(20, n).toString('hex');
    // n_operation 1..600 of two signers, written out of order: 255, 256 and 257 straddle a byte.
    const written: Array<[number, number]> = [];
    for (const signer of [7, 0x0100]) {
      for (let n = 600; n >= 1; n--) written.push([signer, n]);
    }
    for (const [signer, n] of written) {
      batch.put(operationKey(signer, n, digest(n % 256)), heightKey(n), {
        sublevel: store.opIndex,
      });
    }
    await store.commit(batch);
    const values = await store.opIndex.values().all();
    const expected = [7, 0x0100].flatMap((_) => Array.from({ length: 600 }, (_, i) => i + 1));
    expect(values.map((v) => Buffer.from(v).readUInt32BE(0))).toEqual(expected);
    for (const [signer, n] of [
      [7, 1],
      [7, 256],
      [0x0100, 600],
    ] as const) {
      const found = await store.opIndex.values({ ...operationKeyRange(signer, n) }).all();
      expect(found.map((v) => Buffer.from(v).readUInt32BE(0))).toEqual([n]);
    }
    expect(await store.opIndex.values({ ...operationKeyRange(7, 601) }).all()).toEqual([]);
    await store.close();
  });
});
