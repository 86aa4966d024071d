import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createDevGenesis } from '../../genesis';
import { COIN, mine, openTempChain, payFromDev, testWallet } from '../../testing/temp-chain';
import { createChain } from '../chain';
import { ENTRY_ACCOUNT, ENTRY_SPACE, StateChecksum } from './state-checksum';
import {
  ChainStore,
  heightKey,
  META_STATE_CHECKSUM,
  META_STATE_FORMAT,
  STATE_FORMAT_CURRENT,
} from './store';

const entry = fc.record({
  kind: fc.constantFrom(ENTRY_ACCOUNT, ENTRY_SPACE),
  key: fc.uint8Array({ maxLength: 8 }),
  value: fc.uint8Array({ maxLength: 64 }),
});

function checksumOf(entries: ReadonlyArray<{ kind: number; key: Uint8Array; value: Uint8Array }>) {
  const c = new StateChecksum();
  for (const e of entries) c.add(e.kind, e.key, e.value);
  return c;
}

describe('StateChecksum', () => {
  it('does not depend on the order entries are added in', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), (entries) => {
        expect(checksumOf([...entries].reverse()).equals(checksumOf(entries))).toBe(true);
      }),
    );
  });

  it('is back where it was after an entry is added and removed, and survives bytes', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), entry, (entries, extra) => {
        const c = checksumOf(entries);
        const moved = c.copy();
        moved.add(extra.kind, extra.key, extra.value);
        expect(moved.equals(c)).toBe(false);
        moved.remove(extra.kind, extra.key, extra.value);
        expect(moved.equals(c)).toBe(true);
        expect(StateChecksum.fromBytes(c.toBytes())?.equals(c)).toBe(true);
      }),
    );
  });

  it('changes with the kind, the key or the value of an entry', () => {
    const base = checksumOf([{ kind: ENTRY_ACCOUNT, key: heightKey(1), value: Uint8Array.of(1) }]);
    for (const changed of [
      { kind: ENTRY_SPACE, key: heightKey(1), value: Uint8Array.of(1) },
      { kind: ENTRY_ACCOUNT, key: heightKey(2), value: Uint8Array.of(1) },
      { kind: ENTRY_ACCOUNT, key: heightKey(1), value: Uint8Array.of(2) },
    ]) {
      expect(checksumOf([changed]).equals(base)).toBe(false);
    }
  });

  it('reads nothing but its own 8 bytes', () => {
    expect(StateChecksum.fromBytes(new Uint8Array(32))).toBeUndefined();
  });
});

describe('the state checksum at open', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });

  /** A closed chain with a few blocks; returns its dir. */
  async function closedChain(): Promise<string> {
    const { chain, dir, cleanup } = await openTempChain();
    cleanups.push(cleanup);
    for (const label of ['a', 'b']) {
      await payFromDev(chain, testWallet(label).address, COIN);
      await mine(chain);
    }
    await chain.close();
    return dir;
  }

  async function editStore(dir: string, edit: (store: ChainStore) => Promise<void>) {
    const store = await ChainStore.open(dir);
    try {
      await edit(store);
    } finally {
      await store.close();
    }
  }

  /** Flips a bit of an account's last byte (its zero-fee block field): a plausible disk error. */
  async function flipLastByte(store: ChainStore, number: number) {
    const account = (await store.read(store.accounts, heightKey(number)))!;
    account[account.length - 1]! ^= 1;
    await store.accounts.put(heightKey(number), account);
  }

  const createClosed = (dataDir: string, verifyStateAtOpen = true) =>
    createChain({ dataDir, genesis: createDevGenesis(), verifyStateAtOpen });

  it('refuses a data directory whose stored account differs from what the blocks left', async () => {
    const dir = await closedChain();
    await editStore(dir, (store) => flipLastByte(store, 1));
    await expect(createClosed(dir).open()).rejects.toThrow(
      expect.objectContaining({ reason: 'CORRUPT_DATADIR' }),
    );
  });

  it('opens without reading the accounts unless asked to verify them', async () => {
    const dir = await closedChain();
    await editStore(dir, (store) => flipLastByte(store, 1));
    const chain = createClosed(dir, false);
    await chain.open();
    expect(chain.blockCount()).toBe(3);
    await chain.close();
  });

  it.each([
    ['before the address index', undefined, 'DATADIR_TOO_OLD', /hash chain/],
    ['with a hash-chain state root', 2, 'DATADIR_TOO_OLD', /start from an empty one/],
    ['of a newer layout', STATE_FORMAT_CURRENT + 1, 'DATADIR_TOO_NEW', /run a newer chain-node/],
  ])('refuses a data directory %s, saying why', async (_, format, reason, message) => {
    const dir = await closedChain();
    await editStore(dir, (store) =>
      format === undefined
        ? store.meta.del(META_STATE_FORMAT)
        : store.meta.put(META_STATE_FORMAT, Uint8Array.of(format)),
    );
    const error = await createClosed(dir, false)
      .open()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason, message: expect.stringMatching(message) });
  });

  it('refuses a data directory with no state checksum at all', async () => {
    const dir = await closedChain();
    await editStore(dir, (store) => store.meta.del(META_STATE_CHECKSUM));
    await expect(createClosed(dir).open()).rejects.toThrow(
      expect.objectContaining({ reason: 'CORRUPT_DATADIR' }),
    );
  });
});
