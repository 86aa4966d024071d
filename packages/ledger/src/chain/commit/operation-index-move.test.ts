import { opHashIdentity } from '@chain/ophash';
import { afterEach, describe, expect, it } from 'vitest';
import {
  devWallet,
  openTempChain,
  produceTransferBlocks,
  testWallet,
} from '../../testing/temp-chain';
import {
  ChainStore,
  META_STATE_FORMAT,
  operationKeyOfIdentity,
  STATE_FORMAT_CURRENT,
  STATE_FORMAT_LATTICE,
} from '../storage/store';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/**
 * Turns a data directory back into layout 3: its operation index under the ophash identity's text
 * (`ops`), `keep` operations (the first ones in the new index) left where a crash midway through
 * the move would have left them.
 */
async function asLayoutThree(dir: string, ophashes: readonly string[], keep = 0): Promise<void> {
  const store = await ChainStore.open(dir);
  const batch = store.batch();
  for (const ophash of ophashes.slice(keep)) {
    const identity = opHashIdentity(ophash);
    const location = await store.read(store.opIndex, operationKeyOfIdentity(identity));
    if (location === undefined) throw new Error(`operation ${ophash} is not in the index`);
    batch.put(identity, location, { sublevel: store.legacyOps });
    batch.del(operationKeyOfIdentity(identity), { sublevel: store.opIndex });
  }
  batch.put(META_STATE_FORMAT, Uint8Array.of(STATE_FORMAT_LATTICE), { sublevel: store.meta });
  await store.commit(batch);
  await store.close();
}

async function formatOf(dir: string): Promise<{ format: number | undefined; legacy: number }> {
  const store = await ChainStore.open(dir);
  const format = (await store.read(store.meta, META_STATE_FORMAT))?.[0];
  const legacy = (await store.legacyOps.keys().all()).length;
  await store.close();
  return { format, legacy };
}

describe('an operation index of layout 3 moved into signer order at open', () => {
  it('finds every operation again, by ophash and by n_operation, and marks the layout', async () => {
    const t = await openTempChain();
    const bob = testWallet('bob').address;
    await produceTransferBlocks(t.chain, 6, bob);
    const mined = (
      await Promise.all([1, 2, 3, 4, 5, 6].map((h) => t.chain.blockOperations(h)))
    ).flat();
    expect(mined).toHaveLength(6);
    await t.chain.close();
    await asLayoutThree(
      t.dir,
      mined.map((op) => op.ophash),
    );
    expect(await formatOf(t.dir)).toEqual({ format: STATE_FORMAT_LATTICE, legacy: 6 });

    const progress: Array<[number, number | undefined]> = [];
    const again = await openTempChain({
      dataDir: t.dir,
      onOperationIndexMove: (moved, total) => progress.push([moved, total]),
    });
    cleanups.push(again.cleanup);
    expect(progress[0]?.[0]).toBe(0);
    expect(progress.at(-1)).toEqual([6, 6]);
    for (const op of mined) {
      const [found] = await again.chain.findOperation(op.ophash);
      expect(found?.block).toBe(op.block);
      expect(found?.ophash).toBe(op.ophash);
      const [byN] = await again.chain.findByNOperation(devWallet.address, op.n_operation);
      expect(byN?.ophash).toBe(op.ophash);
    }
    // A block after the move is indexed in the new layout beside the moved ones.
    await produceTransferBlocks(again.chain, 1, bob);
    const [newest] = await again.chain.blockOperations(7);
    expect((await again.chain.findOperation(newest!.ophash))[0]?.block).toBe(7);
    await again.chain.close();
    expect(await formatOf(t.dir)).toEqual({ format: STATE_FORMAT_CURRENT, legacy: 0 });
  });

  it('goes on from where a move cut short left it', async () => {
    const t = await openTempChain();
    const carol = testWallet('carol').address;
    await produceTransferBlocks(t.chain, 4, carol);
    const mined = (await Promise.all([1, 2, 3, 4].map((h) => t.chain.blockOperations(h)))).flat();
    await t.chain.close();
    // Two operations already moved, two still in the old layout, the layout mark still 3.
    await asLayoutThree(
      t.dir,
      mined.map((op) => op.ophash),
      2,
    );
    expect(await formatOf(t.dir)).toEqual({ format: STATE_FORMAT_LATTICE, legacy: 2 });

    const again = await openTempChain({ dataDir: t.dir });
    cleanups.push(again.cleanup);
    for (const op of mined) {
      expect((await again.chain.findOperation(op.ophash))[0]?.block).toBe(op.block);
    }
  });

  it('is refused by a node older than the layout (newer than it knows)', async () => {
    const t = await openTempChain();
    cleanups.push(t.cleanup);
    await t.chain.close();
    const store = await ChainStore.open(t.dir);
    await store.meta.put(META_STATE_FORMAT, Uint8Array.of(STATE_FORMAT_CURRENT + 1));
    await store.close();
    await expect(openTempChain({ dataDir: t.dir })).rejects.toMatchObject({
      reason: 'DATADIR_TOO_NEW',
    });
  });
});
