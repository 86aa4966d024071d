import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LtHash } from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, describe, expect, it } from 'vitest';
import { blockSigningHash, decodeSignedHeader, encodeBlockHeader } from '../../block/block';
import { createDevGenesis, genesisHash } from '../../genesis';
import { createRegistry } from '../../operation/ledger-registry';
import type { OperationRegistry } from '../../operation/registry';
import { stateRootOf } from '../../state/state-lattice';
import {
  COIN,
  devWallet,
  fundAndActivate,
  makeTempDir,
  mine,
  openTempChain,
  payFromDev,
  testWallet,
  u32Space,
} from '../../testing/temp-chain';
import { type Chain, createChain } from '../chain';
import type { BlockInfo } from '../state/presentation';
import { decodeRecordChunk } from './record-chunk';
import { InlineSum, recordSum, ThreadSum } from './record-sum';
import type { SnapshotSource } from './snapshot-restore';
import type { ServedSnapshot } from './snapshot-serving';

const memo = u32Space('memo');

function memoRegistry(): OperationRegistry {
  const registry = createRegistry();
  registry.registerSpace(memo);
  registry.registerBlockHook({
    afterOperations(ctx, block) {
      ctx.credit(block.producer, block.fees);
      ctx.put(memo, `h${block.height % 5}`, block.height);
    },
  });
  return registry;
}

/** A block's info without what only a node that executed the block records (its reward). */
function withoutReward(info: BlockInfo): BlockInfo {
  const { reward: _reward, subsidy: _subsidy, ...rest } = info;
  return rest;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function sourceChain(blocks: number): Promise<Chain> {
  const t = await openTempChain({ registry: memoRegistry() });
  cleanups.push(t.cleanup);
  await fundAndActivate(t.chain, testWallet('snap alice'), 10n * COIN);
  for (let i = 0; i < blocks; i++) {
    await payFromDev(t.chain, testWallet(`snap w${i % 4}`).address, COIN);
    await mine(t.chain);
  }
  return t.chain;
}

/** A snapshot held in memory, as a file would give it back. */
interface HeldSnapshot {
  height: number;
  headers: Uint8Array[];
  block: Uint8Array;
  records: Uint8Array[];
}

async function hold(chain: Chain): Promise<HeldSnapshot> {
  const snapshot = chain.snapshot();
  const headers: Uint8Array[] = [];
  for await (const header of snapshot.headers()) headers.push(header);
  const records: Uint8Array[] = [];
  for await (const batch of snapshot.records()) records.push(...batch.map((r) => r.slice()));
  return { height: snapshot.height, headers, block: await snapshot.block(), records };
}

function sourceOf(held: HeldSnapshot): SnapshotSource {
  return {
    height: held.height,
    headers: async function* () {
      yield* held.headers;
    },
    block: async () => held.block,
    records: async function* () {
      for (let i = 0; i < held.records.length; i += 3) yield held.records.slice(i, i + 3);
    },
  };
}

async function blocksOf(chain: Chain, from: number, to: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let h = from; h <= to; h++) out.push((await chain.getBlockBytes(h))!);
  return out;
}

async function emptyChain(): Promise<Chain> {
  const dir = await makeTempDir();
  const chain = createChain({
    dataDir: dir.dir,
    genesis: createDevGenesis(),
    registry: memoRegistry(),
  });
  cleanups.push(async () => {
    await chain.close();
    await dir.remove();
  });
  return chain;
}

async function restored(held: HeldSnapshot): Promise<Chain> {
  const chain = await emptyChain();
  await chain.restoreSnapshot(sourceOf(held));
  await chain.open();
  return chain;
}

describe('snapshots', () => {
  it('a restored chain holds every entry of the source, and the blocks from its height on', async () => {
    const source = await sourceChain(6);
    const held = await hold(source);
    expect(held.height).toBe(source.blockCount() - 1);
    expect(held.headers.length).toBe(held.height);
    const chain = await restored(held);
    expect(chain.stateRoot()).toEqual(source.stateRoot());
    expect(chain.head()).toEqual(source.head());
    expect(chain.historyStart()).toBe(held.height);
    // Entry by entry: the restored chain's own snapshot is the same records.
    expect((await hold(chain)).records).toEqual(held.records);
    // The same block, but not executed here: what it paid out is not known to the restored chain.
    const restoredTip = await chain.blockInfo(held.height);
    expect(restoredTip).toEqual(withoutReward(await source.blockInfo(held.height)));
    expect(restoredTip).not.toHaveProperty('reward');
    await expect(chain.blockInfo(held.height - 1)).rejects.toThrow(
      /before this node's history: it was restored from a snapshot at block 7/,
    );
    await expect(chain.blockOperations(1)).rejects.toThrow(/BEFORE_HISTORY|before this node/);
    const [early] = await source.blockOperations(2);
    await expect(chain.findOperation(early!.ophash)).rejects.toThrow(/before this node's history/);
    const [last] = await source.blockOperations(held.height);
    expect(await chain.findOperation(last!.ophash)).toEqual(
      await source.findOperation(last!.ophash),
    );
    expect(await chain.heightOfHash((await source.blockHash(3))!)).toBe(3);
    await expect(chain.rollback(held.height - 1)).rejects.toThrow(/cannot roll back below block 7/);
  });

  it('fills its history in from blocks checked against its headers, down to block 0', async () => {
    const source = await sourceChain(6);
    const held = await hold(source);
    const chain = await restored(held);
    const blocks = async (from: number, to: number) => {
      const out: Uint8Array[] = [];
      for (let h = from; h <= to; h++) out.push((await source.getBlockBytes(h))!);
      return out;
    };
    // Not the blocks right below the history, or not this chain's: refused, nothing stored.
    await expect(chain.fillHistory(await blocks(3, 5))).rejects.toThrow(/do not end right below/);
    const other = await openTempChain({ registry: memoRegistry() });
    cleanups.push(other.cleanup);
    for (let i = 0; i < 6; i++) {
      await payFromDev(other.chain, testWallet(`snap other ${i}`).address, COIN);
      await mine(other.chain);
    }
    await expect(chain.fillHistory(await blocksOf(other.chain, 5, 6))).rejects.toThrow(
      /not the one of this chain's header/,
    );
    expect(chain.historyStart()).toBe(7);
    // The history index starts with the snapshot's block, and grows down with the history.
    const dev = devWallet.address;
    const sourceDev = await source.walletOperations(dev, { max: 100 });
    expect(chain.indexStart()).toBe(7);
    const atSnapshot = await chain.walletOperations(dev, { max: 100 });
    expect(atSnapshot.indexFrom).toBe(7);
    expect(atSnapshot.operations.map((op) => op.ophash)).toEqual(
      sourceDev.operations.filter((op) => op.block >= 7).map((op) => op.ophash),
    );
    expect(await chain.fillHistory(await blocks(4, 6))).toBe(4);
    expect(chain.indexStart()).toBe(4);
    expect(await chain.blockInfo(5)).toEqual(withoutReward(await source.blockInfo(5)));
    await expect(chain.blockInfo(3)).rejects.toThrow(/restored from a snapshot at block 4/);
    expect(await chain.fillHistory(await blocks(1, 3))).toBe(0);
    const filled = await chain.walletOperations(dev, { max: 100 });
    expect(filled.indexFrom).toBe(0);
    expect(filled.operations.map((op) => op.ophash)).toEqual(
      sourceDev.operations.map((op) => op.ophash),
    );
    for (let h = 0; h < held.height; h++) {
      expect(await chain.getBlockBytes(h)).toEqual(await source.getBlockBytes(h));
      expect(await chain.blockOperations(h)).toEqual(await source.blockOperations(h));
    }
    const [early] = await source.blockOperations(2);
    expect(await chain.findOperation(early!.ophash)).toEqual(
      await source.findOperation(early!.ophash),
    );
    // Reopened, it holds its whole history.
    await chain.close();
  });

  it('imports the blocks after it and produces on it, as the source chain does', async () => {
    const source = await sourceChain(3);
    const chain = await restored(await hold(source));
    const before = source.blockCount();
    for (let i = 0; i < 3; i++) {
      await payFromDev(source, testWallet('snap later').address, COIN);
      await mine(source);
    }
    for (let h = before; h < source.blockCount(); h++) {
      await chain.importBlock((await source.getBlockBytes(h))!);
    }
    expect(chain.head()).toEqual(source.head());
    await payFromDev(chain, testWallet('snap after').address, COIN);
    await mine(chain);
    expect(chain.blockCount()).toBe(source.blockCount() + 1);
    // Reopened, it is the same chain (recent producers from the headers below its history).
    await chain.close();
  });

  it('an open chain at block 0 adopts a snapshot in place and goes on from it', async () => {
    const source = await sourceChain(3);
    const held = await hold(source);
    const t = await openTempChain({ registry: memoRegistry() });
    cleanups.push(t.cleanup);
    const restoredInPlace = await t.chain.adoptSnapshot(sourceOf(held));
    expect(restoredInPlace.height).toBe(held.height);
    expect(t.chain.head()).toEqual(source.head());
    expect((await hold(t.chain)).records).toEqual(held.records);
    await payFromDev(source, testWallet('snap next').address, COIN);
    await mine(source);
    await t.chain.importBlock((await source.getBlockBytes(held.height + 1))!);
    expect(t.chain.stateRoot()).toEqual(source.stateRoot());
    // Once past block 0 it refuses another.
    await expect(t.chain.adoptSnapshot(sourceOf(held))).rejects.toThrow(/at block 0 only/);
    // Reopened, it is the same chain.
    await t.chain.close();
    const reopened = createChain({
      dataDir: t.dir,
      genesis: createDevGenesis(),
      registry: memoRegistry(),
    });
    await reopened.open();
    cleanups.push(() => reopened.close());
    expect(reopened.head()).toEqual(source.head());
  });

  it('a served snapshot stays the one of its height while the chain goes on', async () => {
    const source = await sourceChain(3);
    const held = await hold(source);
    const temp = await makeTempDir('served');
    cleanups.push(temp.remove);
    const dir = join(temp.dir, 'served-snapshots');
    const served = await source.serveSnapshot(dir);
    cleanups.push(() => served.close());
    for (let i = 0; i < 2; i++) {
      await payFromDev(source, testWallet('snap moving').address, COIN);
      await mine(source);
    }
    const expectServes = async (snapshot: ServedSnapshot) => {
      expect(snapshot.height).toBe(held.height);
      expect(snapshot.records).toBe(held.records.length);
      const chunks = await Promise.all(snapshot.chunkHashes.map((_, i) => snapshot.chunk(i)));
      for (const [i, chunk] of chunks.entries()) {
        expect(nativeHashes.sha256(chunk)).toEqual(snapshot.chunkHashes[i]);
      }
      expect(chunks.flatMap((c) => decodeRecordChunk(c))).toEqual(held.records);
      expect(await snapshot.headers(0, held.height)).toEqual(held.headers);
      expect(await snapshot.block()).toEqual(held.block);
      expect(await snapshot.onChain()).toBe(true);
    };
    await expectServes(served);
    // Kept on disk: found again (a restarted node) without a pass over the state.
    const kept = await source.servedSnapshots(dir);
    cleanups.push(async () => {
      for (const k of kept) await k.close();
    });
    expect(kept.map((k) => k.chunkHashes)).toEqual([served.chunkHashes]);
    await expectServes(kept[0]!);
    // A damaged file is found before a chunk leaves (an honest node must not look like a liar).
    const [chunks] = (await readdir(dir)).filter((name) => name.endsWith('.chunks'));
    const bytes = await readFile(join(dir, chunks!));
    bytes[bytes.length - 5]! ^= 1;
    await writeFile(join(dir, chunks!), bytes);
    await expect(kept[0]!.chunk(0)).rejects.toThrow(
      /chunk 0 of the snapshot of block 4 is damaged/,
    );
    // A pass stopped (a node shutting down) leaves no file behind.
    const stopped = new AbortController();
    stopped.abort();
    const before = await readdir(dir);
    await expect(source.serveSnapshot(dir, stopped.signal)).rejects.toThrow(/abort/i);
    expect(await readdir(dir)).toEqual(before);
    // Another chain (its block at that height is another) finds nothing to serve there.
    const { chain: other, cleanup } = await openTempChain({ registry: memoRegistry() });
    cleanups.push(cleanup);
    for (let i = 0; i < 5; i++) await mine(other);
    expect(await other.servedSnapshots(dir)).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a snapshot that is not the chain, before writing anything', async () => {
    const held = await hold(await sourceChain(4));
    const changed = (change: (h: HeldSnapshot) => void): HeldSnapshot => {
      const copy = { ...held, headers: [...held.headers], records: [...held.records] };
      change(copy);
      return copy;
    };
    const genesis = genesisHash(createDevGenesis());
    const resigned = (bytes: Uint8Array, timestamp: number) => {
      const signed = decodeSignedHeader(bytes, nativeHashes);
      const headerBytes = encodeBlockHeader({ ...signed.header, timestamp });
      const signature = nativeSecp256k1.sign(
        blockSigningHash(genesis, headerBytes, nativeHashes),
        testWallet('snap mallory').privateKey,
      );
      return Uint8Array.from([...headerBytes, ...signature]);
    };
    const cases: Array<[HeldSnapshot, RegExp]> = [
      [
        changed((h) => {
          const record = h.records[1]!.slice();
          record[record.length - 40]! ^= 1;
          h.records[1] = record;
        }),
        /does not add up to the state root of block 5/,
      ],
      [changed((h) => h.records.reverse()), /out of sequence|out of order|follows/],
      [changed((h) => h.records.pop()), /producer set is missing|state root/],
      [changed((h) => h.headers.pop()), /holds 4 headers, not the 5/],
      [
        changed((h) => {
          h.headers[2] = resigned(
            h.headers[2]!,
            decodeSignedHeader(h.headers[2]!, nativeHashes).header.timestamp,
          );
        }),
        /block 2: the producer signature does not verify/,
      ],
      [changed((h) => (h.headers[0] = h.headers[1]!)), /block 0 of the snapshot is not/],
    ];
    for (const [bad, message] of cases) {
      const chain = await emptyChain();
      await expect(chain.restoreSnapshot(sourceOf(bad))).rejects.toThrow(message);
      await expect(
        access(join((chain as unknown as { dataDir: string }).dataDir, 'chain')),
      ).rejects.toThrow();
    }
  });

  it('refuses a data directory that holds a chain, and one whose restore was cut short', async () => {
    const held = await hold(await sourceChain(2));
    const t = await openTempChain({ registry: memoRegistry() });
    cleanups.push(t.cleanup);
    await t.chain.close();
    const occupied = createChain({
      dataDir: t.dir,
      genesis: createDevGenesis(),
      registry: memoRegistry(),
    });
    await expect(occupied.restoreSnapshot(sourceOf(held))).rejects.toThrow(/already holds a chain/);

    const chain = await emptyChain();
    let reads = 0;
    const failing: SnapshotSource = {
      ...sourceOf(held),
      records: async function* () {
        // The check reads them whole; the write is cut short halfway.
        reads++;
        yield held.records.slice(0, 2);
        if (reads > 1) throw new Error('the disk went away');
        yield held.records.slice(2);
      },
    };
    await expect(chain.restoreSnapshot(failing)).rejects.toThrow(/went away/);
    await expect(chain.open()).rejects.toThrow(/snapshot import that did not finish/);
    expect(devWallet.address).toBeDefined();
  });
});

describe('records checked chunk by chunk (snapshot sync)', () => {
  it('takes the chunks in any order to the same state root, and refuses a gap, a repeat or a chunk out of place', async () => {
    const chain = await sourceChain(5);
    const held = await hold(chain);
    const chunks: Uint8Array[][] = [];
    for (let i = 0; i < held.records.length; i += 3) chunks.push(held.records.slice(i, i + 3));
    expect(chunks.length).toBeGreaterThan(3);
    const checkOf = (
      order: number[],
      chunkAt: (index: number) => Uint8Array[] = (i) => chunks[i]!,
    ) => {
      const check = chain.recordsCheck(chunks.length);
      for (const index of order) check.chunk(index, chunkAt(index));
      return check;
    };
    const forward = chunks.map((_, i) => i);
    const reversed = [...forward].reverse();
    for (const order of [forward, reversed]) {
      const checked = await checkOf(order).finish();
      expect(stateRootOf(checked.vector, nativeHashes)).toEqual(chain.stateRoot());
      expect(checked.accounts + checked.spaceEntries + 1).toBe(held.records.length);
    }
    await expect(checkOf(forward.slice(1)).finish()).rejects.toThrow(/chunk 0 is missing/);
    const swapped = (i: number) => chunks[i === 0 ? 1 : i === 1 ? 0 : i]!;
    await expect(checkOf(forward, swapped).finish()).rejects.toThrow(
      /out of sequence|out of order/,
    );
    const repeated = (i: number) => chunks[i === 1 ? 0 : i]!;
    await expect(checkOf(forward, repeated).finish()).rejects.toThrow(
      /out of sequence|out of order/,
    );
    expect(() => checkOf([0, 0])).toThrow(/chunk 0 came twice/);
  });

  it('sums the records on a thread of its own to the vector the calling thread gets', async () => {
    const held = await hold(await sourceChain(5));
    const inline = new InlineSum(nativeHashes);
    const threaded = recordSum(nativeHashes);
    // @chain/crypto is built before this package's tests: the thread is there to be used.
    expect(threaded).not.toBeInstanceOf(InlineSum);
    for (let i = 0; i < held.records.length; i += 2) {
      inline.add(held.records.slice(i, i + 2));
      threaded.add(held.records.slice(i, i + 2));
    }
    threaded.add([]);
    const vector = await threaded.total();
    expect(vector.equals(await inline.total())).toBe(true);
    expect(vector.equals(LtHash.identity())).toBe(false);
    // A thread that could not sum every entry gives no vector at all.
    const broken = new ThreadSum('file:///nonexistent/crypto.js');
    broken.add(held.records.slice(0, 2));
    await expect(broken.total()).rejects.toThrow(/nonexistent\/crypto\.js|state sum/);
  });
});
