import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainStore, heightKey } from './store';

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
