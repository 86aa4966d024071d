import { nativeHashes } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBlock } from '../../block/block';
import { createDevGenesis } from '../../genesis';
import { createRegistry } from '../../operation/ledger-registry';
import type { OperationRegistry, OperationType } from '../../operation/registry';
import { joinProducersType } from '../../testing/join-producers';
import {
  COIN,
  devWallet,
  fundAndActivate,
  makeTempDir,
  openTempChain,
  payFromDev,
  type TestWallet,
  testWallet,
  u32Space,
} from '../../testing/temp-chain';
import { type Chain, createChain } from '../chain';
import type { ChainCore } from '../chain-core';
import { heightKey } from '../storage/store';
import type { ChainSnapshot } from './snapshot-export';
import type { SnapshotSource } from './snapshot-restore';

/** A token-like space: balances under keys, put, changed and deleted by an operation. */
const ledgerOf = u32Space('held');

const utf8 = new TextEncoder();
const setType: OperationType<{ key: string; value: number | null }> = {
  optype: 202,
  subtype: 0,
  name: 'set held',
  encodeBody: (b) => {
    const key = utf8.encode(b.key);
    const value = b.value ?? 0;
    return Uint8Array.of(
      key.length,
      ...key,
      b.value === null ? 0 : 1,
      value >>> 24,
      value >>> 16,
      value >>> 8,
      value,
    );
  },
  decodeBody: (r) => {
    const key = new TextDecoder().decode(r.bytesView(r.u8()));
    const present = r.u8() === 1;
    const bytes = r.bytesView(4);
    const value = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, false);
    return { key, value: present ? value : null };
  },
  apply(ctx, op) {
    if (op.body.value === null) ctx.delete(ledgerOf, op.body.key);
    else ctx.put(ledgerOf, op.body.key, op.body.value);
  },
  present: () => ({ amount: 0n, senders: [], receivers: [], optxt: 'set', extra: {} }),
};

function registry(): OperationRegistry {
  const r = createRegistry();
  r.registerSpace(ledgerOf);
  r.register(setType);
  r.register(joinProducersType);
  return r;
}

const alice = testWallet('snap-at alice');
const bob = testWallet('snap-at bob');
// Keys whose UTF-16 order is not LevelDB's byte order: U+E000 sorts before U+1F600 in UTF-8 only.
const PRIVATE_USE = 'k\uE000';
const EMOJI = 'k\u{1F600}';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function set(chain: Chain, key: string, value: number | null) {
  return chain.signAndSubmit({
    optype: 202,
    signer: bob.address,
    privateKey: bob.privateKey,
    body: { key, value },
  });
}

/**
 * Blocks 1-4 fund alice and bob, put entries and create an account; H = 4. Above it: entries
 * changed (k1 twice), deleted (k2, re-added later; k3; k4 added at H; the two out-of-UTF-16-order
 * keys), added (k5), accounts created (carol, dave), and alice joins the producers (block 6), so
 * that the blocks after are signed by dev and alice in turn.
 */
async function sourceChain(maxRollback?: number): Promise<Chain> {
  const t = await openTempChain({
    registry: registry(),
    ...(maxRollback === undefined ? {} : { maxRollback }),
  });
  cleanups.push(t.cleanup);
  const chain = t.chain;
  let producer: TestWallet = devWallet;
  const produce = async () => {
    await chain.produceBlock(producer.privateKey);
    if (chain.producers().length > 1) producer = producer === devWallet ? alice : devWallet;
  };
  await fundAndActivate(chain, [alice, bob], 10n * COIN);
  for (const [key, value] of [
    ['k1', 1],
    ['k2', 2],
    ['k3', 3],
    [PRIVATE_USE, 7],
    [EMOJI, 8],
  ] as const) {
    await set(chain, key, value);
  }
  await produce();
  await payFromDev(chain, testWallet('snap-at before').address, COIN);
  await produce();
  await set(chain, 'k4', 4);
  await produce();
  // Above H = 4.
  await set(chain, 'k1', 10);
  await set(chain, 'k2', null);
  await set(chain, 'k5', 5);
  await set(chain, PRIVATE_USE, null);
  await payFromDev(chain, testWallet('snap-at carol').address, COIN);
  await produce();
  await chain.signAndSubmit({
    optype: 201,
    signer: alice.address,
    privateKey: alice.privateKey,
    body: { join: true },
  });
  await produce();
  await set(chain, 'k1', 11);
  await set(chain, 'k3', null);
  await set(chain, 'k2', 22);
  await set(chain, EMOJI, null);
  await produce();
  await payFromDev(chain, testWallet('snap-at dave').address, COIN);
  await produce();
  await set(chain, 'k4', null);
  await produce();
  await payFromDev(chain, bob.address, 1n);
  await produce();
  return chain;
}

interface HeldSnapshot {
  height: number;
  hash: Uint8Array;
  accounts: number;
  headers: Uint8Array[];
  block: Uint8Array;
  records: Uint8Array[];
}

async function hold(snapshot: ChainSnapshot): Promise<HeldSnapshot> {
  const headers: Uint8Array[] = [];
  for await (const header of snapshot.headers()) headers.push(header);
  const records: Uint8Array[] = [];
  for await (const batch of snapshot.records()) records.push(...batch.map((r) => r.slice()));
  const { height, hash, accounts } = snapshot;
  return { height, hash, accounts, headers, block: await snapshot.block(), records };
}

function sourceOf(held: HeldSnapshot): SnapshotSource {
  return {
    height: held.height,
    headers: async function* () {
      yield* held.headers;
    },
    block: async () => held.block,
    records: async function* () {
      for (let i = 0; i < held.records.length; i += 2) yield held.records.slice(i, i + 2);
    },
  };
}

async function emptyChain(): Promise<Chain> {
  const dir = await makeTempDir();
  const chain = createChain({
    dataDir: dir.dir,
    genesis: createDevGenesis(),
    registry: registry(),
  });
  cleanups.push(async () => {
    await chain.close();
    await dir.remove();
  });
  return chain;
}

async function openEmpty(): Promise<Chain> {
  const t = await openTempChain({ registry: registry() });
  cleanups.push(t.cleanup);
  return t.chain;
}

describe('snapshots at an earlier height', () => {
  it('at every height the undo records reach, the records of a chain that stopped there', async () => {
    const source = await sourceChain();
    const head = source.blockCount() - 1;
    expect(source.producers()).toHaveLength(2);
    // A chain that imports the source's blocks one by one stops at each height in turn.
    const reference = await openEmpty();
    for (let h = 0; h < head; h++) {
      if (h > 0) await reference.importBlock((await source.getBlockBytes(h))!);
      if (h === 0) continue;
      const at = await hold(await source.snapshotAt(h));
      const expected = await hold(reference.snapshot());
      expect({ height: at.height, hash: at.hash, accounts: at.accounts }).toEqual({
        height: expected.height,
        hash: expected.hash,
        accounts: expected.accounts,
      });
      expect(at.headers).toEqual(expected.headers);
      expect(at.block).toEqual(expected.block);
      expect(at.records, `records at block ${h}`).toEqual(expected.records);
    }
    // At the head it is the head's snapshot.
    expect((await hold(await source.snapshotAt(head))).records).toEqual(
      (await hold(source.snapshot())).records,
    );
  });

  it('restores to block H (its state root), and the restored chain imports the blocks after it', async () => {
    const source = await sourceChain();
    const held = await hold(await source.snapshotAt(4));
    const blockH = decodeBlock(held.block, nativeHashes);
    expect(blockH.header.height).toBe(4);
    const chain = await emptyChain();
    await chain.restoreSnapshot(sourceOf(held));
    await chain.open();
    expect(chain.stateRoot()).toEqual(blockH.header.stateRoot);
    expect(chain.head().height).toBe(4);
    expect(chain.producers()).toHaveLength(1);
    for (let h = 5; h < source.blockCount(); h++) {
      await chain.importBlock((await source.getBlockBytes(h))!);
    }
    expect(chain.head()).toEqual(source.head());
    expect((await hold(chain.snapshot())).records).toEqual((await hold(source.snapshot())).records);
  });

  it('refuses a height the undo records do not reach, naming the lowest, and one above the head', async () => {
    const source = await sourceChain(3);
    const head = source.blockCount() - 1;
    expect((await source.snapshotAt(head - 3)).height).toBe(head - 3);
    await expect(source.snapshotAt(head - 4)).rejects.toMatchObject({
      reason: 'ROLLBACK_TOO_DEEP',
      message: expect.stringMatching(
        new RegExp(
          `its last 3 blocks, so the lowest height a snapshot can be made at is ${head - 3}`,
        ),
      ),
    });
    await expect(source.snapshotAt(head + 1)).rejects.toMatchObject({
      reason: 'BLOCK_NOT_FOUND',
    });
    await expect(source.snapshotAt(-1)).rejects.toMatchObject({ reason: 'BLOCK_NOT_FOUND' });
    const young = await openEmpty();
    await payFromDev(young, bob.address, COIN);
    await young.produceBlock(devWallet.privateKey);
    await expect(young.snapshotAt(0)).rejects.toMatchObject({
      reason: 'BAD_ROLLBACK',
      message: expect.stringMatching(/only the genesis.* lowest height .* is 1$/),
    });
  });

  it("refuses undo records that do not give back block H's state root, before exporting", async () => {
    const source = await sourceChain();
    const store = (source as unknown as ChainCore).requireStore();
    const head = source.blockCount() - 1;
    // Block 5's record where block 6's was: what it says before block 6 is not.
    const undo5 = await store.read(store.undo, heightKey(5));
    await store.batch().put(heightKey(6), undo5!, { sublevel: store.undo }).write();
    await expect(source.snapshotAt(6)).resolves.toBeDefined();
    await expect(source.snapshotAt(5)).rejects.toMatchObject({
      reason: 'CORRUPT_DATADIR',
      message: 'the undo records above block 5 do not give back its state root',
    });
    await store
      .batch()
      .del(heightKey(head - 1), { sublevel: store.undo })
      .write();
    await expect(source.snapshotAt(head - 2)).rejects.toMatchObject({
      message: expect.stringMatching(new RegExp(`lowest height .* is ${head - 1}$`)),
    });
  });

  it('below the history of a restored chain, BEFORE_HISTORY', async () => {
    const source = await sourceChain();
    const chain = await emptyChain();
    await chain.restoreSnapshot(sourceOf(await hold(await source.snapshotAt(4))));
    await chain.open();
    for (let h = 5; h < 8; h++) await chain.importBlock((await source.getBlockBytes(h))!);
    expect((await hold(await chain.snapshotAt(5))).records).toEqual(
      (await hold(await source.snapshotAt(5))).records,
    );
    await expect(chain.snapshotAt(3)).rejects.toMatchObject({
      reason: 'BEFORE_HISTORY',
      message: expect.stringMatching(
        /restored from a snapshot at block 4; the lowest height .* is 4/,
      ),
    });
  });
});
