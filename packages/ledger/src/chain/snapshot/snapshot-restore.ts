import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, equalBytes, type LtHash } from '@chain/crypto';
import {
  type Block,
  decodeBlock,
  decodeSignedHeader,
  operationsRoot,
  signedHeaderBytes,
} from '../../block/block';
import { StoreError } from '../../errors';
import { decodeOperation, type Operation } from '../../operation/operation';
import { spaceKey } from '../../state/committed-state';
import { LATTICE_ACCOUNT, LATTICE_SPACE, stateRootOf } from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { encodeHead, invalidBlock, opLocation } from '../chain-records';
import { type BootCore, genesisBlock, loadCommitted } from '../commit/chain-boot';
import { META_WEIGHT } from '../consensus/clique-state';
import { encodeWeight } from '../consensus/fork-choice';
import { HeaderChain } from '../consensus/header-chain';
import { indexBlock, keysOfOperation } from '../history/history-index';
import {
  ENTRY_ACCOUNT,
  ENTRY_PRODUCERS,
  ENTRY_SPACE,
  PRODUCERS_KEY,
  StateChecksum,
  spaceChecksumKey,
} from '../storage/state-checksum';
import {
  type ChainBatch,
  ChainStore,
  heightKey,
  META_GENESIS,
  META_HEAD,
  META_HISTORY_START,
  META_INDEX_FROM,
  META_PRODUCERS,
  META_RESTORING,
  META_STATE_CHECKSUM,
  META_STATE_FORMAT,
  operationIndexKey,
  prefixOf,
  STATE_FORMAT_CURRENT,
} from '../storage/store';
import { AddressOrder } from './address-order';
import { type CheckedRecords, decodeRecord, RecordsCheck } from './record-order';

/**
 * Restoring a data directory from a snapshot (snapshot-export.ts): everything is checked before
 * anything is written, against the chain itself and nothing else. The headers from block 0 (block 0
 * must be the one this node's genesis makes) are checked as a chain (HeaderChain); the head block's
 * operations against its header's operations root; the records' order; and the state root of the
 * records against the head block's header. Only then is the data directory written, in a second
 * pass over the records; an interrupted write leaves a mark that makes the directory refuse to open.
 */

/** A snapshot to restore from; `records()` is read twice (check, then write) unless `checked`. */
export interface SnapshotSource {
  height: number;
  headers(): AsyncIterable<Uint8Array>;
  block(): Promise<Uint8Array>;
  records(): AsyncIterable<Uint8Array[]>;
  /**
   * The records already checked chunk by chunk as they arrived (snapshot sync), so that they are
   * read once more only to be written; the chunks' joins and the state root are checked still.
   */
  checked?: RecordsCheck;
}

export type RestorePhase = 'headers' | 'state' | 'write';

export interface RestoredSnapshot {
  height: number;
  hash: Uint8Array;
  accounts: number;
  spaceEntries: number;
}

const WRITE_BATCH = 10_000;

/** What restoring uses of a chain that is not open (its genesis, types, hashes, signatures). */
export type RestoreCore = Pick<
  ChainCore,
  | 'dataDir'
  | 'genesis'
  | 'genesisHash'
  | 'hashes'
  | 'lattice'
  | 'maxFutureSeconds'
  | 'prefix'
  | 'registry'
  | 'root'
  | 'secp'
>;

export async function restoreSnapshot(
  core: RestoreCore,
  source: SnapshotSource,
  progress?: (phase: RestorePhase, done: number) => void,
): Promise<RestoredSnapshot> {
  await refuseExistingChain(core.dataDir);
  // Before the chain is opened its committed state is empty: block 0 is computed from the genesis.
  const checked = await checkSnapshot(core, genesisBlock(core).bytes, source, progress);
  const store = await ChainStore.open(core.dataDir);
  try {
    return await writeSnapshot(core, store, source, checked, progress);
  } finally {
    await store.close();
  }
}

/** What adopting uses of an open chain: restoring's, its store and tasks, and reloading. */
export type AdoptCore = RestoreCore & BootCore & Pick<ChainCore, 'headState' | 'mempool' | 'tasks'>;

/**
 * An open chain still at block 0 (a node that has just joined a network) takes a snapshot in
 * place: checked as restoreSnapshot checks it, then the genesis state is replaced by the
 * snapshot's and memory reloaded from disk, in one task (nothing is produced or imported meanwhile).
 */
export function adoptSnapshot(
  core: AdoptCore,
  source: SnapshotSource,
  progress?: (phase: RestorePhase, done: number) => void,
): Promise<RestoredSnapshot> {
  return core.tasks.run(async () => {
    const store = core.requireStore();
    if (core.headState.height !== 0) {
      throw new StoreError(
        ErrorCode.NOT_ALLOWED,
        'DATADIR_NOT_EMPTY',
        `a snapshot replaces the state of a chain at block 0 only; this one is at block ${core.headState.height}`,
      );
    }
    const block0 = await store.read(store.blocks, heightKey(0));
    if (block0 === undefined) throw new Error('block 0 is missing');
    const checked = await checkSnapshot(core, block0, source, progress);
    await clearState(store);
    const restored = await writeSnapshot(core, store, source, checked, progress);
    await loadCommitted(core, store);
    return restored;
  });
}

interface CheckedSnapshot {
  block: Block;
  ops: Operation[];
  tip: HeaderChain;
  checked: CheckedRecords;
}

async function checkSnapshot(
  core: RestoreCore,
  block0: Uint8Array,
  source: SnapshotSource,
  progress?: (phase: RestorePhase, done: number) => void,
): Promise<CheckedSnapshot> {
  const tip = await checkHeaders(core, decodeBlock(block0, core.hashes), source, progress);
  const block = decodeBlock(await source.block(), core.hashes);
  const ops = checkHeadBlock(core, tip, block);
  const checked = await checkRecords(core, source, block, progress);
  return { block, ops, tip, checked };
}

/** Deletes the state entries (a chain at block 0 holds the genesis ones: a few). */
async function clearState(store: ChainStore): Promise<void> {
  const batch = store.batch();
  for (const sublevel of [store.accounts, store.addresses]) {
    for await (const key of sublevel.keys()) batch.del(key, { sublevel });
  }
  for await (const key of store.spaces.keys()) batch.del(key, { sublevel: store.spaces });
  await batch.write({ sync: true });
}

async function refuseExistingChain(dataDir: string): Promise<void> {
  try {
    await access(join(dataDir, 'chain'));
  } catch {
    return;
  }
  throw new StoreError(
    ErrorCode.NOT_ALLOWED,
    'DATADIR_NOT_EMPTY',
    `data directory ${dataDir} already holds a chain: a snapshot is restored into an empty one`,
  );
}

/** The headers from block 0 (this chain's own, `block0`) checked as a chain (HeaderChain). */
async function checkHeaders(
  core: RestoreCore,
  block0: Block,
  source: SnapshotSource,
  progress?: (phase: RestorePhase, done: number) => void,
): Promise<HeaderChain> {
  const headers = new HeaderChain(block0, {
    genesisHash: core.genesisHash,
    hashes: core.hashes,
    secp: core.secp,
    maxTimestamp: Math.floor(Date.now() / 1000) + core.maxFutureSeconds,
  });
  let height = 0;
  for await (const bytes of source.headers()) {
    if (height === 0) {
      if (!equalBytes(bytes, signedHeaderBytes(block0))) {
        throw invalidBlock(
          'WRONG_PARENT',
          'block 0 of the snapshot is not the one of this genesis',
        );
      }
    } else {
      headers.append(decodeSignedHeader(bytes, core.hashes));
    }
    height++;
    if (height % 10_000 === 0) progress?.('headers', height);
  }
  if (height !== source.height) {
    throw invalidBlock(
      'NOT_NEXT_BLOCK',
      `the snapshot holds ${height} headers, not the ${source.height} below its block ${source.height}`,
    );
  }
  progress?.('headers', height);
  return headers;
}

/** The head block extends the headers and holds the operations its header commits to. */
function checkHeadBlock(core: RestoreCore, headers: HeaderChain, block: Block): Operation[] {
  headers.append(block);
  const ops = block.operations.map((bytes, i) => {
    try {
      return decodeOperation(bytes, core.registry, core.hashes, true);
    } catch (error) {
      throw invalidBlock('BAD_OPERATION', `operation ${i}: ${(error as Error).message}`, error);
    }
  });
  const root = operationsRoot(
    ops.map((op) => op.digest),
    core.hashes,
  );
  if (!equalBytes(root, block.header.opsRoot)) {
    throw invalidBlock('BAD_OPERATIONS_ROOT', 'the head block operations root does not match');
  }
  return ops;
}

async function checkRecords(
  core: RestoreCore,
  source: SnapshotSource,
  block: Block,
  progress?: (phase: RestorePhase, done: number) => void,
): Promise<CheckedRecords> {
  let check = source.checked;
  if (check === undefined) {
    check = new RecordsCheck(core);
    let seen = 0;
    let index = 0;
    try {
      for await (const records of source.records()) {
        check.chunk(index++, records);
        seen += records.length;
        progress?.('state', seen);
      }
    } catch (error) {
      check.close();
      throw error;
    }
  }
  const checked = await check.finish();
  if (!equalBytes(stateRootOf(checked.vector, core.hashes), block.header.stateRoot)) {
    throw invalidBlock(
      'BAD_STATE_ROOT',
      `the snapshot's state does not add up to the state root of block ${block.header.height}: it is not that block's state`,
    );
  }
  return checked;
}

async function writeSnapshot(
  core: RestoreCore,
  store: ChainStore,
  source: SnapshotSource,
  checked: CheckedSnapshot,
  progress?: (phase: RestorePhase, done: number) => void,
): Promise<RestoredSnapshot> {
  const { block, ops, tip } = checked;
  const height = block.header.height;
  {
    const mark = store.batch();
    mark.put(META_RESTORING, Uint8Array.of(1), { sublevel: store.meta });
    await mark.write({ sync: true });
    const checksum = new StateChecksum();
    const writer = new BatchWriter(store);
    let h = 0;
    for await (const bytes of source.headers()) {
      const signed = decodeSignedHeader(bytes, core.hashes);
      writer.put(heightKey(h), bytes, store.headers);
      writer.put(signed.hash, heightKey(h), store.hashes);
      h++;
      if (writer.full) await writer.flush();
    }
    let written = 0;
    const addresses = new AddressOrder(prefixOf(store.addresses), core.dataDir);
    try {
      // The records were checked (their order and their state root) before anything was written.
      for await (const records of source.records()) {
        for (const record of records) {
          writeRecord(writer, store, checksum, addresses, record);
          if (writer.full) await writer.flush();
        }
        written += records.length;
        progress?.('write', written);
      }
      for await (const [address, key] of addresses.sorted()) {
        writer.putPrefixed(address, key);
        if (writer.full) await writer.flush();
      }
    } finally {
      addresses.close();
    }
    writer.put(heightKey(height), block.bytes, store.blocks);
    writer.put(block.hash, heightKey(height), store.hashes);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      writer.putPrefixed(
        operationIndexKey(store.opIndex, op.signer, op.nOperation, op.digestHex),
        opLocation(height, i),
      );
    }
    await writer.finish();
    await store.syncWrites();
    const last = store.batch();
    last.put(META_WEIGHT, encodeWeight(tip.tip.weight), { sublevel: store.meta });
    last.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
    last.put(META_GENESIS, core.genesisHash, { sublevel: store.meta });
    last.put(META_STATE_FORMAT, Uint8Array.of(STATE_FORMAT_CURRENT), { sublevel: store.meta });
    last.put(META_HISTORY_START, u32le(height), { sublevel: store.meta });
    // The snapshot's block is indexed here, the blocks below it as history-fill stores them.
    const resolve = (hash: Uint8Array) => store.readNumber(hash);
    const keys = ops.map((op) => keysOfOperation(core.registry, core.hashes, op, resolve));
    indexBlock(last, store, keys, height);
    last.put(META_INDEX_FROM, u32le(height), { sublevel: store.meta });
    last.put(META_HEAD, encodeHead(headOf(block, checked.checked.vector)), {
      sublevel: store.meta,
    });
    last.del(META_RESTORING, { sublevel: store.meta });
    await last.write({ sync: true });
    return {
      height,
      hash: block.hash,
      accounts: checked.checked.accounts,
      spaceEntries: checked.checked.spaceEntries,
    };
  }
}

function headOf(block: Block, vector: LtHash) {
  const { header } = block;
  return {
    height: header.height,
    hash: block.hash,
    timestamp: header.timestamp,
    stateRoot: header.stateRoot,
    stateVector: vector,
  };
}

/** Writes a checked record: an account's key and value are cut from it, as it holds them. */
function writeRecord(
  writer: BatchWriter,
  store: ChainStore,
  checksum: StateChecksum,
  addresses: AddressOrder,
  record: Uint8Array,
): void {
  if (record[0] === LATTICE_ACCOUNT) {
    // `0x01 || number u32 BE || account`: the number's bytes are its key (heightKey).
    const key = record.subarray(1, 5);
    const value = record.subarray(5);
    writer.put(key, value, store.accounts);
    // An account's encoding starts with its address hash (account.ts); written in their order.
    addresses.add(value.subarray(0, 20), key);
    checksum.add(ENTRY_ACCOUNT, key, value);
    return;
  }
  const decoded = decodeRecord(record);
  if (decoded.kind === LATTICE_SPACE) {
    const key = spaceKey(decoded.space, decoded.key);
    writer.put(key, decoded.value, store.spaces);
    checksum.add(ENTRY_SPACE, spaceChecksumKey(key), decoded.value);
  } else {
    writer.put(META_PRODUCERS, decoded.value, store.meta);
    checksum.add(ENTRY_PRODUCERS, PRODUCERS_KEY, decoded.value);
  }
}

/**
 * Puts gathered into batches of WRITE_BATCH, each written (not synced) once full, while the next
 * one is gathered: LevelDB writes on its own thread. A writer calls `flush` when `full`.
 */
class BatchWriter {
  private batch: ChainBatch;
  private count = 0;
  private writing: Promise<void> | undefined;

  constructor(private readonly store: ChainStore) {
    this.batch = store.batch();
  }

  get full(): boolean {
    return this.count >= WRITE_BATCH;
  }

  put<K extends Uint8Array | string>(
    key: K,
    value: Uint8Array,
    sublevel: Parameters<ChainBatch['put']>[2]['sublevel'],
  ): void {
    this.batch.put(key, value, { sublevel });
    this.count++;
  }

  putPrefixed(key: Uint8Array, value: Uint8Array): void {
    this.batch.putPrefixed(key, value);
    this.count++;
  }

  /** Writes what is gathered; every put is written once this resolves. */
  async finish(): Promise<void> {
    await this.flush();
    await this.writing;
  }

  /** Hands the gathered puts to LevelDB once the batch before them is written. */
  async flush(): Promise<void> {
    if (this.count === 0) return;
    const full = this.batch;
    this.batch = this.store.batch();
    this.count = 0;
    await this.writing;
    this.writing = full.write();
  }
}

function u32le(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}
