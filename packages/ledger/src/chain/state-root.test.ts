import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex, LtHash, ltHashElement } from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import { blockSigningHash, decodeBlock, encodeBlock, encodeBlockHeader } from '../block/block';
import { createDevGenesis, genesisHash } from '../genesis';
import { createRegistry } from '../operation/ledger-registry';
import type { OperationRegistry } from '../operation/registry';
import { encodeAccount, newAccount } from '../state/account';
import { decodeProducerList, encodeProducerList } from '../state/producer-list';
import {
  encodeAccountEntry,
  encodeProducersEntry,
  encodeSpaceEntry,
  StateLattice,
  stateRootOf,
} from '../state/state-lattice';
import {
  COIN,
  devWallet,
  fundAndActivate,
  mine,
  openTempChain,
  payFromDev,
  testWallet,
  u32Space,
} from '../testing/temp-chain';
import { type Chain, createChain } from './chain';
import { decodeHead, encodeHead } from './chain-records';
import { StateChecksum } from './storage/state-checksum';
import {
  ChainStore,
  heightKey,
  META_HEAD,
  META_PRODUCERS,
  META_STATE_CHECKSUM,
  readHeightKey,
} from './storage/store';

/** A space a block hook writes and deletes entries of, so that blocks move space entries too. */
const memo = u32Space('memo');

function memoRegistry(): OperationRegistry {
  const registry = createRegistry();
  registry.registerSpace(memo);
  registry.registerBlockHook({
    afterOperations(ctx, block) {
      ctx.credit(block.producer, block.fees);
      ctx.put(memo, `h${block.height % 3}`, block.height);
      if (block.height % 4 === 0) ctx.delete(memo, 'h1');
    },
  });
  return registry;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function memoChain(): Promise<{ chain: Chain; dir: string }> {
  const t = await openTempChain({ registry: memoRegistry() });
  cleanups.push(t.cleanup);
  return t;
}

const reopen = (dir: string, verifyStateAtOpen = false) =>
  createChain({
    dataDir: dir,
    genesis: createDevGenesis(),
    registry: memoRegistry(),
    verifyStateAtOpen,
  });

async function someBlocks(chain: Chain, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await payFromDev(chain, testWallet(`w${i % 3}`).address, COIN);
    await mine(chain);
  }
}

/** Every entry of the committed state, read from the data directory: what a snapshot holds. */
interface Snapshot {
  accounts: Array<[number, string]>;
  spaces: Array<[string, string, string]>;
  producers: number[];
}

async function snapshotOf(dir: string): Promise<Snapshot> {
  const store = await ChainStore.open(dir);
  try {
    const accounts: Snapshot['accounts'] = [];
    for await (const [key, value] of store.accounts.iterator()) {
      accounts.push([readHeightKey(key), bytesToHex(value)]);
    }
    const spaces: Snapshot['spaces'] = [];
    for await (const [key, value] of store.spaces.iterator()) {
      const split = key.indexOf('\u0000');
      spaces.push([key.slice(0, split), key.slice(split + 1), bytesToHex(value)]);
    }
    const producers = decodeProducerList((await store.read(store.meta, META_PRODUCERS))!);
    return { accounts, spaces, producers };
  } finally {
    await store.close();
  }
}

/** The vector of a snapshot, computed from nothing but its entries. */
function vectorOf(snapshot: Snapshot): LtHash {
  const vector = LtHash.identity();
  const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
  const add = (entry: Uint8Array) => vector.add(ltHashElement(nativeHashes, entry));
  for (const [number, value] of snapshot.accounts) add(encodeAccountEntry(number, hex(value)));
  for (const [space, key, value] of snapshot.spaces) add(encodeSpaceEntry(space, key, hex(value)));
  add(encodeProducersEntry(encodeProducerList(snapshot.producers)));
  return vector;
}

async function headBlockRoot(chain: Chain): Promise<Uint8Array> {
  const bytes = (await chain.getBlockBytes(chain.blockCount() - 1))!;
  return decodeBlock(bytes, nativeHashes).header.stateRoot;
}

const PYTHON = process.env.PYTHON ?? 'python3';
const hasPython = spawnSync(PYTHON, ['-c', 'import hashlib, struct'], {}).status === 0;
const STATE_ROOT_PY = join(import.meta.dirname, '../../../../tools/e2e/py/state_root.py');

describe('StateLattice', () => {
  const text = (s: string) => new TextEncoder().encode(s);

  it('moves a vector as a recomputation from the entries would', () => {
    const lattice = new StateLattice(nativeHashes);
    const one = encodeAccount({ ...newAccount(1, new Uint8Array(20)), balance: 5n });
    const two = encodeAccount({ ...newAccount(1, new Uint8Array(20)), balance: 7n });
    const start = LtHash.identity().add(ltHashElement(nativeHashes, encodeAccountEntry(1, one)));
    const changes = {
      accounts: [
        { number: 1, after: newAccount(1, new Uint8Array(20)), afterBytes: two, before: one },
      ],
      spaces: [
        { space: 'memo', key: 'k', afterValue: 1, afterBytes: text('v'), before: undefined },
      ],
      producers: { before: [], after: [1] },
    };
    const withEmptyProducers = start
      .copy()
      .add(ltHashElement(nativeHashes, encodeProducersEntry(encodeProducerList([]))));
    const expected = LtHash.identity();
    for (const entry of [
      encodeAccountEntry(1, two),
      encodeSpaceEntry('memo', 'k', text('v')),
      encodeProducersEntry(encodeProducerList([1])),
    ]) {
      expected.add(ltHashElement(nativeHashes, entry));
    }
    const before = withEmptyProducers.toBytes();
    expect(lattice.apply(withEmptyProducers, changes).equals(expected)).toBe(true);
    // The vector given is left as it was.
    expect(bytesToHex(withEmptyProducers.toBytes())).toBe(bytesToHex(before));
  });

  it('moves a vector by a large block, an unchanged entry adding nothing and a long one hashed too', () => {
    const account = (n: number, balance: bigint) =>
      encodeAccount({ ...newAccount(n, new Uint8Array(20)), balance });
    // More entries than one call of the hashing kernel takes (512).
    const accounts = Array.from({ length: 1000 }, (_, n) => ({
      number: n,
      after: newAccount(n, new Uint8Array(20)),
      afterBytes: account(n, n % 10 === 0 ? 1n : 2n),
      before: n % 3 === 0 ? undefined : account(n, 1n),
    }));
    // A space entry longer than one BLAKE3 chunk (the kernel leaves it to `hashes`).
    const long = new Uint8Array(2000).fill(7);
    const changes = {
      accounts,
      spaces: [
        { space: 'memo', key: 'k', afterValue: 1, afterBytes: undefined, before: text('v') },
        { space: 'memo', key: 'long', afterValue: 1, afterBytes: long, before: undefined },
      ],
      producers: { before: [], after: [1] },
    };
    const start = LtHash.identity();
    const add = (entry: Uint8Array) => start.add(ltHashElement(nativeHashes, entry));
    for (const a of accounts)
      if (a.before !== undefined) add(encodeAccountEntry(a.number, a.before));
    add(encodeSpaceEntry('memo', 'k', text('v')));
    add(encodeProducersEntry(encodeProducerList([])));
    const expected = LtHash.identity();
    for (const a of accounts) {
      expected.add(ltHashElement(nativeHashes, encodeAccountEntry(a.number, a.afterBytes)));
    }
    expected.add(ltHashElement(nativeHashes, encodeSpaceEntry('memo', 'long', long)));
    expected.add(ltHashElement(nativeHashes, encodeProducersEntry(encodeProducerList([1]))));
    expect(new StateLattice(nativeHashes).apply(start, changes).equals(expected)).toBe(true);
  });

  it('separates entries of different kinds, keys and values', () => {
    const value = Uint8Array.of(1, 2, 3);
    const entries = [
      encodeAccountEntry(1, value),
      encodeAccountEntry(2, value),
      encodeSpaceEntry('a', 'b', value),
      encodeSpaceEntry('ab', '', value),
      encodeSpaceEntry('a', 'b', Uint8Array.of(1, 2)),
      encodeProducersEntry(value),
    ];
    const roots = entries.map((e) =>
      bytesToHex(stateRootOf(LtHash.identity().add(ltHashElement(nativeHashes, e)), nativeHashes)),
    );
    expect(new Set(roots).size).toBe(entries.length);
  });

  it('computes the worked example of docs/wire-format.md', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../../docs/wire-format.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Worked example: a state root'));
    const value = (label: string) => new RegExp(`^${label}\\s+(\\S+)$`, 'm').exec(section)?.[1];
    const account = Uint8Array.from(Buffer.from(value('account 0 value')!, 'hex'));
    const entries = [
      encodeAccountEntry(0, account),
      encodeSpaceEntry('memo', 'h1', Uint8Array.of(0, 0, 0, 7)),
      encodeProducersEntry(encodeProducerList([0])),
    ];
    expect(bytesToHex(entries[0]!)).toBe(value('account entry'));
    expect(bytesToHex(entries[1]!)).toBe(value('space entry'));
    expect(bytesToHex(entries[2]!)).toBe(value('producers entry'));
    const vector = LtHash.identity();
    for (const e of entries) vector.add(ltHashElement(nativeHashes, e));
    expect(bytesToHex(vector.toBytes().subarray(0, 8))).toBe(value('vector, first 8 bytes'));
    expect(bytesToHex(nativeHashes.sha256(vector.toBytes()))).toBe(value('SHA-256 of the vector'));
    expect(bytesToHex(stateRootOf(vector, nativeHashes))).toBe(value('state root'));
    vector.remove(ltHashElement(nativeHashes, entries[1]!));
    expect(bytesToHex(stateRootOf(vector, nativeHashes))).toBe(
      value('state root without the space entry'),
    );
  });
});

describe('the state root of a chain', () => {
  it('is the root of a snapshot of the whole state, recomputed from its entries alone', async () => {
    const { chain, dir } = await memoChain();
    await fundAndActivate(chain, testWallet('alice'), 10n * COIN);
    await someBlocks(chain, 5);
    const root = await headBlockRoot(chain);
    expect(chain.stateRoot()).toEqual(root);
    await chain.close();
    const snapshot = await snapshotOf(dir);
    expect(snapshot.spaces.length).toBeGreaterThan(0);
    expect(stateRootOf(vectorOf(snapshot), nativeHashes)).toEqual(root);
    if (hasPython) {
      const run = spawnSync(PYTHON, [STATE_ROOT_PY], { input: JSON.stringify(snapshot) });
      expect(run.stderr.toString()).toBe('');
      expect(JSON.parse(run.stdout.toString()).state_root).toBe(bytesToHex(root));
    }
  });

  it('is kept with the head across a restart, and checked against a full scan when asked', async () => {
    const { chain, dir } = await memoChain();
    await someBlocks(chain, 3);
    const root = chain.stateRoot();
    await chain.close();
    const reopened = reopen(dir, true);
    await reopened.open();
    cleanups.push(() => reopened.close());
    expect(reopened.stateRoot()).toEqual(root);
    await someBlocks(reopened, 2);
    expect(reopened.stateRoot()).toEqual(await headBlockRoot(reopened));
  });

  it('is restored exactly by a rollback, and moves on from there', async () => {
    const { chain, dir } = await memoChain();
    await someBlocks(chain, 2);
    await chain.close();
    const headAtTwo = await readHeadRecord(dir);
    const reopened = reopen(dir);
    await reopened.open();
    await fundAndActivate(reopened, testWallet('bob'), COIN);
    await someBlocks(reopened, 4);
    await reopened.rollback(2);
    expect(reopened.stateRoot()).toEqual(decodeHead(headAtTwo).stateRoot);
    await reopened.close();
    expect(bytesToHex(await readHeadRecord(dir))).toBe(bytesToHex(headAtTwo));
    const verified = reopen(dir, true);
    await verified.open();
    cleanups.push(() => verified.close());
    await someBlocks(verified, 1);
    expect(verified.stateRoot()).toEqual(await headBlockRoot(verified));
  });

  it('catches an entry changed on disk even when the CRC checksum was fixed to match', async () => {
    const { chain, dir } = await memoChain();
    await someBlocks(chain, 2);
    await chain.close();
    const store = await ChainStore.open(dir);
    try {
      const before = (await store.read(store.accounts, heightKey(0)))!;
      const after = before.slice();
      after[after.length - 1]! ^= 1;
      const checksum = StateChecksum.fromBytes(
        (await store.read(store.meta, META_STATE_CHECKSUM))!,
      )!;
      checksum.replace(1, heightKey(0), before, after);
      await store.accounts.put(heightKey(0), after);
      await store.meta.put(META_STATE_CHECKSUM, checksum.toBytes());
    } finally {
      await store.close();
    }
    const snapshot = await snapshotOf(dir);
    const opened = reopen(dir, false);
    await opened.open();
    const root = opened.stateRoot();
    await opened.close();
    expect(stateRootOf(vectorOf(snapshot), nativeHashes)).not.toEqual(root);
    await expect(reopen(dir, true).open()).rejects.toThrow(
      expect.objectContaining({ reason: 'CORRUPT_DATADIR' }),
    );
  });

  it('refuses a head record whose vector is not the head block root', async () => {
    const { chain, dir } = await memoChain();
    await someBlocks(chain, 1);
    await chain.close();
    const store = await ChainStore.open(dir);
    try {
      const head = decodeHead((await store.read(store.meta, META_HEAD))!);
      head.stateVector = head.stateVector.copy().add(ltHashElement(nativeHashes, Uint8Array.of(1)));
      await store.meta.put(META_HEAD, encodeHead(head));
    } finally {
      await store.close();
    }
    await expect(reopen(dir).open()).rejects.toThrow(
      expect.objectContaining({ reason: 'CORRUPT_DATADIR' }),
    );
  });

  it('makes an import refuse a block whose root is another state (its parent)', async () => {
    const a = await memoChain();
    await someBlocks(a.chain, 1);
    const b = await memoChain();
    const bytes = (await a.chain.getBlockBytes(1))!;
    const block = decodeBlock(bytes, nativeHashes);
    const headerBytes = encodeBlockHeader({ ...block.header, stateRoot: b.chain.stateRoot() });
    const signature = nativeSecp256k1.sign(
      blockSigningHash(genesisHash(createDevGenesis()), headerBytes, nativeHashes),
      devWallet.privateKey,
    );
    const forged = encodeBlock(headerBytes, signature, block.operations);
    await expect(b.chain.importBlock(forged)).rejects.toThrow(
      expect.objectContaining({ reason: 'BAD_STATE_ROOT' }),
    );
    await b.chain.importBlock(bytes);
    expect(b.chain.stateRoot()).toEqual(a.chain.stateRoot());
  });
});

/** The head record (height, hash, timestamp, state root, state vector) of a closed chain. */
async function readHeadRecord(dir: string): Promise<Uint8Array> {
  const store = await ChainStore.open(dir);
  try {
    return (await store.read(store.meta, META_HEAD))!;
  } finally {
    await store.close();
  }
}
