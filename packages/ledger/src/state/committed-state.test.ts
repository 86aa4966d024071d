import { afterEach, describe, expect, it } from 'vitest';
import type { Chain } from '../chain/chain';
import {
  COIN,
  importQueued,
  mine,
  openTempChain,
  payFromDev,
  type TempChain,
  testWallet,
} from '../testing/temp-chain';
import { encodeAccount, newAccount } from './account';
import { CommittedState, emptyStateKeys, type StateStore } from './committed-state';

/** A state cache of about one entry: nearly every read goes to the database. */
const TINY_CACHE_MB = 0.0001;

describe('the committed state on disk', () => {
  const opened: TempChain[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.cleanup();
  });

  async function open(stateCacheMb: number, dataDir?: string): Promise<Chain> {
    const temp = await openTempChain({ stateCacheMb, ...(dataDir ? { dataDir } : {}) });
    opened.push(temp);
    return temp.chain;
  }

  const receivers = Array.from({ length: 40 }, (_, i) => testWallet(`receiver ${i}`).address);

  /** Blocks paying receivers new and old, so that blocks both create accounts and change them. */
  async function produceBlocks(chain: Chain, blocks: number): Promise<Uint8Array[]> {
    const first = chain.blockCount();
    for (let b = 0; b < blocks; b++) {
      for (let i = 0; i < 6; i++) {
        await payFromDev(chain, receivers[(b * 7 + i * 5) % receivers.length]!, COIN + BigInt(b));
      }
      await mine(chain);
    }
    const out: Uint8Array[] = [];
    for (let h = first; h < chain.blockCount(); h++) out.push((await chain.getBlockBytes(h))!);
    return out;
  }

  function accounts(chain: Chain) {
    return Array.from({ length: 60 }, (_, n) => chain.accountByNumber(n));
  }

  it('gives the same state with a cache of one entry as with one holding everything', async () => {
    const producer = await open(TINY_CACHE_MB);
    const blocks = await produceBlocks(producer, 12);
    const tiny = await open(TINY_CACHE_MB);
    const large = await open(64);
    // Queued imports are written behind: the tiny cache must find them in memory until written.
    await importQueued(tiny, blocks);
    await importQueued(large, blocks);
    expect(tiny.head().hash).toEqual(producer.head().hash);
    expect(large.head().hash).toEqual(producer.head().hash);
    expect(accounts(tiny)).toEqual(accounts(large));
    expect(accounts(producer)).toEqual(accounts(large));
    for (const address of receivers) {
      expect(tiny.walletInfo(address)).toEqual(large.walletInfo(address));
    }
  });

  it('rolls back accounts it created and changed, then takes the blocks again', async () => {
    const producer = await open(64);
    const blocks = await produceBlocks(producer, 10);
    const chain = await open(TINY_CACHE_MB);
    await importQueued(chain, blocks.slice(0, 4));
    const before = accounts(chain);
    const beforeRoot = chain.stateRoot();
    await importQueued(chain, blocks.slice(4));
    await chain.rollback(4);
    expect(accounts(chain)).toEqual(before);
    expect(chain.stateRoot()).toEqual(beforeRoot);
    // A created account rolled back is gone from the address index too.
    const unknown = receivers.filter((address) => chain.walletInfo(address).account === -1);
    expect(unknown.length).toBeGreaterThan(0);
    await importQueued(chain, blocks.slice(4));
    expect(chain.head().hash).toEqual(producer.head().hash);
    expect(accounts(chain)).toEqual(accounts(producer));
  });

  it('reads every account back from disk after a restart', async () => {
    const temp = await openTempChain({ stateCacheMb: 64 });
    const blocks = await produceBlocks(temp.chain, 6);
    expect(blocks.length).toBe(6);
    const expected = accounts(temp.chain);
    await temp.chain.close();
    opened.push(temp); // removes the directory after the reopened chain closes
    const reopened = await open(TINY_CACHE_MB, temp.dir);
    expect(accounts(reopened)).toEqual(expected);
  });
});

describe('loading for a read (Chain.loadState)', () => {
  it('loads what is on disk only, and says when all of it is in memory', async () => {
    const temp = await openTempChain();
    try {
      const receiver = testWallet('loaded').address;
      await payFromDev(temp.chain, receiver, COIN);
      await mine(temp.chain);
      await temp.chain.close();
      const reopened = await openTempChain({ dataDir: temp.dir });
      try {
        const wallets = [testWallet('loaded').hash160];
        const loading = reopened.chain.loadState({ wallets });
        expect(loading).toBeInstanceOf(Promise);
        await loading;
        expect(reopened.chain.loadState({ wallets })).toBeUndefined();
        expect(reopened.chain.walletInfo(receiver).balance).toBe(String(COIN));
      } finally {
        await reopened.cleanup();
      }
    } finally {
      await temp.cleanup();
    }
  });
});

describe('loading ahead', () => {
  /** A store whose batched reads wait until released, over a map of account encodings. */
  function slowStore(accounts: Map<number, Uint8Array>) {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store: StateStore = {
      readAccount: (n) => accounts.get(n),
      readNumber: () => undefined,
      readSpace: () => undefined,
      readAccounts: async (numbers) => {
        const values = numbers.map((n) => accounts.get(n));
        await released;
        return values;
      },
      readNumbers: async (hashes) => hashes.map(() => undefined),
      readSpaces: async (keys) => keys.map(() => undefined),
    };
    return { store, release: () => release() };
  }

  it('does not cache a read that a commit overtook', async () => {
    const stored = newAccount(0, new Uint8Array(20));
    stored.balance = 5n;
    const { store, release } = slowStore(new Map([[0, encodeAccount(stored)]]));
    const state = new CommittedState(store, () => undefined, 1);
    state.reset(1, []);
    const loading = state.load({ ...emptyStateKeys(), accounts: [0] });
    // A block changes account 0 while its old bytes are being read.
    const block = state.child();
    block.editAccount(0)!.balance = 9n;
    state.commit(block);
    release();
    await loading;
    expect(state.account(0)?.balance).toBe(9n);
  });

  it('caches what it loaded, so the apply finds it without reading', async () => {
    const stored = newAccount(0, new Uint8Array(20));
    stored.balance = 5n;
    const { store, release } = slowStore(new Map([[0, encodeAccount(stored)]]));
    let syncReads = 0;
    const counting: StateStore = {
      ...store,
      readAccount: (n) => {
        syncReads++;
        return store.readAccount(n);
      },
    };
    const state = new CommittedState(counting, () => undefined, 1);
    state.reset(1, []);
    release();
    await state.load({ ...emptyStateKeys(), accounts: [0] });
    expect(state.account(0)?.balance).toBe(5n);
    expect(syncReads).toBe(0);
  });
});
