import { ErrorCode, equalBytes } from '@chain/crypto';
import { decodeBlock } from '../../block/block';
import { type LedgerError, StoreError } from '../../errors';
import { decodeUndo } from '../../state/block-changes';
import { spaceKey } from '../../state/committed-state';
import { encodeProducerList } from '../../state/producer-list';
import {
  encodeAccountEntry,
  encodeProducersEntry,
  encodeSpaceEntry,
  stateRootOf,
} from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { invalidBlock } from '../chain-records';
import { recordOfEntry } from '../storage/state-records';
import { type ChainStore, heightKey, META_PRODUCERS, readHeightKey } from '../storage/store';
import { type ChainSnapshot, chainSnapshot } from './snapshot-export';

/**
 * A snapshot at a block H below the head, of a chain nothing writes to meanwhile (a stopped node's
 * data directory). The state at H is not kept on disk, only the head's and each recent block's undo
 * record (its entries' values before it; block-commit.ts keeps the last maxRollback). So the state
 * at H is the head's with, for every entry a block above H changed, the value before the earliest
 * such block (none: the entry did not exist at H). The head's entries are read in their order and
 * that overlay is merged in, so the records come in the order a head snapshot has and a restore
 * checks (snapshot-restore.ts).
 */

/** What a snapshot at an earlier height reads of the chain's core. */
export type SnapshotAtCore = Pick<
  ChainCore,
  'genesisHash' | 'hashes' | 'headState' | 'historyFrom' | 'maxRollback' | 'requireStore' | 'root'
>;

/** The entries whose value at H is not the head's: undefined where the entry did not exist at H. */
interface Overlay {
  accounts: Map<number, Uint8Array | undefined>;
  /** By `space\0key` (spaceKey), as the store keys them. */
  spaces: Map<string, Uint8Array | undefined>;
  producers: Uint8Array | undefined;
}

const BATCH = 4096;

/** The snapshot at block `height` (the head's when it is the head). */
export async function chainSnapshotAt(
  core: SnapshotAtCore,
  height: number,
): Promise<ChainSnapshot> {
  if (height === core.headState.height) return chainSnapshot(core);
  await checkReach(core, height);
  const store = core.requireStore();
  const overlay = await overlayAbove(core, height);
  const bytes = await store.read(store.blocks, heightKey(height));
  if (bytes === undefined) throw corrupt(`block ${height} is missing`);
  const block = decodeBlock(bytes, core.hashes);
  // Checked before a byte is exported: a snapshot that a restore would refuse is not written.
  await checkStateRoot(core, overlay, block.header.stateRoot, height);
  const cut = chainSnapshot({
    genesisHash: core.genesisHash,
    hashes: core.hashes,
    historyFrom: core.historyFrom,
    requireStore: () => store,
    root: core.root,
    headState: { height, hash: block.hash },
  });
  return {
    ...cut,
    accounts: accountsAt(core, overlay),
    records: () => recordsAt(store, overlay),
  };
}

/**
 * The lowest height a snapshot can be made at: the undo records reach from the head down without
 * a gap to the block above it, and nothing below the history of a restored node.
 */
export async function lowestSnapshotHeight(
  core: Pick<SnapshotAtCore, 'headState' | 'historyFrom' | 'requireStore'>,
): Promise<number> {
  const store = core.requireStore();
  let lowest = core.headState.height;
  const keys = store.undo.keys({ lte: heightKey(lowest), reverse: true });
  try {
    for await (const key of keys) {
      if (lowest <= core.historyFrom || readHeightKey(key) !== lowest) break;
      lowest--;
    }
  } finally {
    await keys.close();
  }
  return Math.max(lowest, core.historyFrom);
}

async function checkReach(core: SnapshotAtCore, height: number): Promise<void> {
  const head = core.headState.height;
  if (!Number.isInteger(height) || height < 0 || height > head) {
    throw invalidBlock('BLOCK_NOT_FOUND', `no block ${height}: the chain ends at block ${head}`);
  }
  const lowest = await lowestSnapshotHeight(core);
  if (height < core.historyFrom) {
    throw invalidBlock(
      'BEFORE_HISTORY',
      `block ${height} is before this node's history: it was restored from a snapshot at block ${core.historyFrom}; the lowest height a snapshot can be made at is ${lowest}`,
    );
  }
  if (height === 0) {
    // Block 0 is made from the genesis file by every node: a restore starts above it.
    throw invalidBlock(
      'BAD_ROLLBACK',
      `a snapshot at block 0 would hold only the genesis, which every node makes itself; the lowest height a snapshot can be made at is ${Math.max(lowest, 1)}`,
    );
  }
  if (height < lowest) {
    throw invalidBlock(
      'ROLLBACK_TOO_DEEP',
      `a snapshot at block ${height} needs the undo records of blocks ${height + 1} to ${head}; this data directory keeps those of its last ${core.maxRollback} blocks, so the lowest height a snapshot can be made at is ${lowest}`,
    );
  }
}

async function overlayAbove(core: SnapshotAtCore, height: number): Promise<Overlay> {
  const store = core.requireStore();
  const overlay: Overlay = { accounts: new Map(), spaces: new Map(), producers: undefined };
  // From the head down: the value a lower block had before it replaces a higher one's.
  for (let h = core.headState.height; h > height; h--) {
    const bytes = await store.read(store.undo, heightKey(h));
    if (bytes === undefined) throw corrupt(`the undo record of block ${h} is missing`);
    const undo = decodeUndo(bytes);
    for (const a of undo.accounts) overlay.accounts.set(a.number, a.before);
    for (const s of undo.spaces) overlay.spaces.set(spaceKey(s.space, s.key), s.before);
    if (undo.producers !== undefined) overlay.producers = encodeProducerList(undo.producers);
  }
  return overlay;
}

/** The head's state vector moved by the overlay must be block H's state root. */
async function checkStateRoot(
  core: SnapshotAtCore,
  overlay: Overlay,
  stateRoot: Uint8Array,
  height: number,
): Promise<void> {
  const store = core.requireStore();
  const added: Uint8Array[] = [];
  const removed: Uint8Array[] = [];
  for (const [number, before] of overlay.accounts) {
    const now = await store.read(store.accounts, heightKey(number));
    if (now !== undefined) removed.push(encodeAccountEntry(number, now));
    if (before !== undefined) added.push(encodeAccountEntry(number, before));
  }
  for (const [key, before] of overlay.spaces) {
    const now = await store.read(store.spaces, key);
    if (now !== undefined) removed.push(spaceEntry(key, now));
    if (before !== undefined) added.push(spaceEntry(key, before));
  }
  if (overlay.producers !== undefined) {
    removed.push(encodeProducersEntry(await producersNow(store)));
    added.push(encodeProducersEntry(overlay.producers));
  }
  const vector = core.headState.stateVector.copy().update(added, removed, core.hashes);
  if (!equalBytes(stateRootOf(vector, core.hashes), stateRoot)) {
    throw corrupt(`the undo records above block ${height} do not give back its state root`);
  }
}

/** Accounts are numbered in creation order and never removed: those created above H are the last. */
function accountsAt(core: SnapshotAtCore, overlay: Overlay): number {
  let count = core.root.nextNumber;
  for (const [number, before] of overlay.accounts) {
    if (before === undefined && number < count) count = number;
  }
  return count;
}

async function* recordsAt(store: ChainStore, overlay: Overlay): AsyncGenerator<Uint8Array[]> {
  const accounts = [...overlay.accounts].sort((a, b) => a[0] - b[0]);
  const headAccounts = entries(store.accounts.iterator(), readHeightKey);
  for await (const batch of merged(headAccounts, accounts, (a, b) => a - b)) {
    yield batch.map(([number, value]) => recordOfEntry(encodeAccountEntry(number, value)));
  }
  const spaces = [...overlay.spaces].sort((a, b) => byteOrder(a[0], b[0]));
  const headSpaces = entries(store.spaces.iterator(), (key: string) => key);
  for await (const batch of merged(headSpaces, spaces, byteOrder)) {
    yield batch.map(([key, value]) => recordOfEntry(spaceEntry(key, value)));
  }
  const producers = overlay.producers ?? (await producersNow(store));
  yield [recordOfEntry(encodeProducersEntry(producers))];
}

interface EntryIterator<R> {
  nextv(size: number): Promise<Array<[R, Uint8Array]>>;
  close(): Promise<void>;
}

async function* entries<R, K>(
  iterator: EntryIterator<R>,
  keyOf: (raw: R) => K,
): AsyncGenerator<Array<[K, Uint8Array]>> {
  try {
    for (;;) {
      const batch = await iterator.nextv(BATCH);
      if (batch.length === 0) return;
      yield batch.map(([raw, value]): [K, Uint8Array] => [keyOf(raw), value]);
    }
  } finally {
    await iterator.close();
  }
}

/**
 * The head's entries (in key order) with the overlay's (sorted by `compare`) put over them: an
 * overlay value replaces the head's, an overlay undefined drops it, an overlay key the head lacks
 * is put in its place.
 */
async function* merged<K>(
  head: AsyncIterable<Array<[K, Uint8Array]>>,
  overlay: ReadonlyArray<readonly [K, Uint8Array | undefined]>,
  compare: (a: K, b: K) => number,
): AsyncGenerator<Array<[K, Uint8Array]>> {
  let next = 0;
  const out: Array<[K, Uint8Array]> = [];
  const takeOverlay = () => {
    const [key, value] = overlay[next++]!;
    if (value !== undefined) out.push([key, value]);
  };
  for await (const batch of head) {
    for (const [key, value] of batch) {
      while (next < overlay.length && compare(overlay[next]![0], key) < 0) takeOverlay();
      if (next < overlay.length && compare(overlay[next]![0], key) === 0) takeOverlay();
      else out.push([key, value]);
    }
    if (out.length > 0) yield out.splice(0);
  }
  while (next < overlay.length) takeOverlay();
  if (out.length > 0) yield out.splice(0);
}

/** LevelDB's order of utf8 keys: their bytes, which UTF-16 string comparison differs from. */
function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function spaceEntry(key: string, value: Uint8Array): Uint8Array {
  const split = key.indexOf('\u0000');
  return encodeSpaceEntry(key.slice(0, split), key.slice(split + 1), value);
}

async function producersNow(store: ChainStore): Promise<Uint8Array> {
  const producers = await store.read(store.meta, META_PRODUCERS);
  if (producers === undefined) throw corrupt('the producer set is missing');
  return producers;
}

function corrupt(message: string): LedgerError {
  return new StoreError(ErrorCode.INVALID_DATA, 'CORRUPT_DATADIR', message);
}
