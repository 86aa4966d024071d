import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opHashIdentityOf } from '@chain/ophash';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainStore, heightKey, operationIndexKey } from './store';

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

describe('operationIndexKey (the ops key written without building its text)', () => {
  it('is the prefixed utf8 of the opHashIdentity text, and what the ops sublevel reads back', async () => {
    const store = await openStore();
    const cases = fc.sample(
      fc.tuple(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
      ),
      50,
    );
    cases.push([0xffffffff, 1, new Uint8Array(20).fill(0xab)], [0, 0, new Uint8Array(20)]);
    const batch = store.batch();
    cases.forEach(([signer, nOperation, digest], i) => {
      const digestHex = Buffer.from(digest).toString('hex');
      const identity = opHashIdentityOf(signer, nOperation, digestHex);
      const key = operationIndexKey(store.ops, signer, nOperation, digestHex);
      expect(Buffer.from(key).toString('latin1')).toBe(`${store.ops.prefix}${identity}`);
      batch.putPrefixed(key, heightKey(i));
    });
    await store.commit(batch);
    for (const [i, [signer, nOperation, digest]] of cases.entries()) {
      const identity = opHashIdentityOf(signer, nOperation, Buffer.from(digest).toString('hex'));
      expect(await store.read(store.ops, identity)).toEqual(heightKey(i));
    }
    expect(await store.ops.keys().all()).toHaveLength(new Set(cases.map((c) => c.join())).size);
    await store.close();
  });
});
