import { afterEach, describe, expect, it } from 'vitest';
import { transferRequest } from '../../operation/typed-request';
import {
  COIN,
  devWallet,
  fundAndActivate,
  mine,
  openTempChain,
  payFromDev,
  type TempChain,
  testWallet,
  transferTo,
} from '../../testing/temp-chain';
import { ChainStore, META_INDEX_FROM } from '../storage/store';
import { addressHistoryKey } from './history-index';
import type { HistoryQuery } from './history-reads';

// The history index on a real LevelDB: every operation touching a wallet, newest first or from a
// block on, paged by cursor; undone by a rollback; kept across a restart; off when asked.

const chains: TempChain[] = [];
afterEach(async () => {
  while (chains.length > 0) await chains.pop()!.cleanup();
});

async function tempChain(options: Parameters<typeof openTempChain>[0] = {}): Promise<TempChain> {
  const t = await openTempChain(options);
  chains.push(t);
  return t;
}

/** Every page of a wallet's history, following the cursors; the (block, opblock) of each op. */
async function allPages(t: TempChain, wallet: string, query: HistoryQuery) {
  const seen: Array<[number, number]> = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await t.chain.walletOperations(wallet, {
      ...query,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const op of page.operations) seen.push([op.block, op.opblock]);
    cursor = page.cursor ?? undefined;
    pages++;
  } while (cursor !== undefined);
  return { seen, pages };
}

describe('history index', () => {
  it('lists every operation touching a wallet, as signer and as receiver, newest first', async () => {
    const t = await tempChain();
    const alice = testWallet('history alice');
    const bob = testWallet('history bob');
    await fundAndActivate(t.chain, alice, 10n * COIN); // block 1: funding (0), activation (1)
    await payFromDev(t.chain, bob.address, COIN);
    await mine(t.chain); // block 2: dev -> bob
    await t.chain.signAndSubmit(
      transferRequest(
        { signer: alice.address, privateKey: alice.privateKey },
        transferTo(bob.address, 2n),
      ),
    );
    await mine(t.chain); // block 3: alice -> bob

    const alicePage = await t.chain.walletOperations(alice.address, { max: 100 });
    expect(alicePage.operations.map((op) => [op.block, op.opblock])).toEqual([
      [3, 0],
      [1, 1],
      [1, 0],
    ]);
    expect(alicePage.operations.map((op) => op.confirmations)).toEqual([1, 3, 3]);
    expect(alicePage.cursor).toBeNull();
    expect(alicePage.indexFrom).toBe(0);
    const bobPage = await t.chain.walletOperations(bob.address, { max: 100 });
    expect(bobPage.operations.map((op) => op.block)).toEqual([3, 2]);
    expect(bobPage.operations[0]!.signer_account).toBe(alice.address);
    const dev = await t.chain.walletOperations(devWallet.address, { max: 100 });
    expect(dev.operations.map((op) => op.block)).toEqual([2, 1]);
    // A wallet never on chain has no history (not an error).
    const nobody = await t.chain.walletOperations(testWallet('history nobody').address, { max: 5 });
    expect(nobody).toEqual({ operations: [], cursor: null, indexFrom: 0 });
  });

  it('pages by cursor both ways, each operation once, and reads from a block on', async () => {
    const t = await tempChain();
    const carol = testWallet('history carol');
    for (let block = 0; block < 7; block++) {
      for (let i = 0; i < 3; i++) await payFromDev(t.chain, carol.address, BigInt(i + 1));
      await mine(t.chain);
    }
    const newest = await allPages(t, carol.address, { max: 4 });
    expect(newest.seen).toHaveLength(21);
    expect(newest.pages).toBe(6);
    const sorted = [...newest.seen].sort((a, b) => b[0] - a[0] || b[1] - a[1]);
    expect(newest.seen).toEqual(sorted);
    expect(new Set(newest.seen.map(String)).size).toBe(21);

    const since = await allPages(t, carol.address, { max: 5, fromBlock: 5 });
    expect(since.seen).toEqual([
      [5, 0],
      [5, 1],
      [5, 2],
      [6, 0],
      [6, 1],
      [6, 2],
      [7, 0],
      [7, 1],
      [7, 2],
    ]);
    const bad = t.chain.walletOperations(carol.address, { max: 5, cursor: 'not a cursor' });
    await expect(bad).rejects.toMatchObject({ reason: 'BAD_CURSOR', param: 'cursor' });
    await expect(t.chain.walletOperations(carol.address, { max: 0 })).rejects.toMatchObject({
      param: 'max',
    });
  });

  it('is undone by a rollback and kept across a restart', async () => {
    const t = await tempChain();
    const dave = testWallet('history dave');
    await payFromDev(t.chain, dave.address, COIN);
    await mine(t.chain);
    await payFromDev(t.chain, dave.address, COIN);
    await mine(t.chain);
    expect((await t.chain.walletOperations(dave.address, { max: 10 })).operations).toHaveLength(2);
    await t.chain.rollback(1);
    const after = await t.chain.walletOperations(dave.address, { max: 10 });
    expect(after.operations.map((op) => op.block)).toEqual([1]);
    await mine(t.chain); // the returned transfer mined again, in block 2
    await t.chain.close();
    const reopened = await tempChain({ dataDir: t.dir });
    const page = await reopened.chain.walletOperations(dave.address, { max: 10 });
    expect(page.operations.map((op) => op.block)).toEqual([2, 1]);
    expect(page.indexFrom).toBe(0);
    // Read from the store (a fresh chain's block cache is empty), the objects getBlockOperations gives.
    for (const { confirmations, ...op } of page.operations) {
      expect(op).toEqual((await reopened.chain.blockOperations(op.block))[op.opblock]);
      expect(confirmations).toBe(reopened.chain.blockCount() - op.block);
    }
  });

  it('writes nothing when off', async () => {
    const t = await tempChain({ historyIndex: false });
    const erin = testWallet('history erin');
    await payFromDev(t.chain, erin.address, COIN);
    await mine(t.chain);
    expect((await t.chain.walletOperations(erin.address, { max: 10 })).operations).toEqual([]);
  });
});

describe('a signer by n_operation', () => {
  it('finds its operation pending and mined, and says the pending n_operation', async () => {
    const t = await tempChain();
    const frank = testWallet('history frank');
    const before = t.chain.walletInfo(devWallet.address);
    expect(before.n_operation_pending).toBe(before.n_operation);
    const first = await payFromDev(t.chain, frank.address, COIN);
    const second = await payFromDev(t.chain, frank.address, 2n * COIN);
    const pendingInfo = t.chain.walletInfo(devWallet.address);
    expect(pendingInfo.n_operation).toBe(before.n_operation);
    expect(pendingInfo.n_operation_pending).toBe(before.n_operation + 2);
    const [pending] = await t.chain.findByNOperation(devWallet.address, second.n_operation);
    expect(pending).toMatchObject({ block: 0, ophash: second.ophash });
    await mine(t.chain);
    const [mined] = await t.chain.findByNOperation(devWallet.address, first.n_operation);
    expect(mined).toMatchObject({ block: 1, amount: COIN.toString() });
    expect(await t.chain.findByNOperation(devWallet.address, second.n_operation + 1)).toEqual([]);
    expect(await t.chain.findByNOperation(frank.address, 1)).toEqual([]);
  });
});

describe('a data directory made before the index', () => {
  it('says its index starts with the next block, and indexes from there', async () => {
    const t = await tempChain();
    const gina = testWallet('history gina');
    await payFromDev(t.chain, gina.address, COIN);
    await mine(t.chain); // block 1
    await t.chain.close();
    // As an older version left it: no index mark (nor keys: those of block 1 are removed too).
    const store = await ChainStore.open(t.dir);
    await store.commit(
      store
        .batch()
        .del(META_INDEX_FROM, { sublevel: store.meta })
        .del(addressHistoryKey(1, 1, 0), { sublevel: store.addressHistory }),
    );
    await store.close();
    const reopened = await tempChain({ dataDir: t.dir });
    expect(reopened.chain.indexStart()).toBe(2);
    await payFromDev(reopened.chain, gina.address, COIN);
    await mine(reopened.chain); // block 2
    const page = await reopened.chain.walletOperations(gina.address, { max: 10 });
    expect(page).toMatchObject({ indexFrom: 2, cursor: null });
    expect(page.operations.map((op) => op.block)).toEqual([2]);
  });
});
