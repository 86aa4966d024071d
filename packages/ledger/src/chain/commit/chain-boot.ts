import { decodeAddress, ErrorCode, equalBytes, LtHash } from '@chain/crypto';
import {
  type BlockHeader,
  computeBlockHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  ZERO_HASH,
} from '../../block/block';
import { StoreError } from '../../errors';
import { decodeOperation } from '../../operation/operation';
import { collectChanges } from '../../state/block-changes';
import type { CommittedState } from '../../state/committed-state';
import { carriedProducers } from '../../state/producer-list';
import {
  encodeAccountEntry,
  encodeProducersEntry,
  encodeSpaceEntry,
  stateRootOf,
  VectorSum,
} from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { decodeHead, encodeHead, type HeadState, notOpen } from '../chain-records';
import type { AdmissionCore } from '../mempool/mempool-admission';
import { admit } from '../mempool/mempool-admission';
import { Journal, type JournalRecord } from '../storage/journal';
import {
  decodeProducerList,
  ENTRY_ACCOUNT,
  ENTRY_PRODUCERS,
  ENTRY_SPACE,
  encodeProducerList,
  PRODUCERS_KEY,
  StateChecksum,
  spaceChecksumKey,
} from '../storage/state-checksum';
import {
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
  readHeightKey,
  STATE_FORMAT_CURRENT,
  STATE_FORMAT_LATTICE,
} from '../storage/store';
import type { CommitCore } from './block-commit';
import { adoptCommitted, writeChanges } from './block-commit';
import { moveOperationIndex } from './operation-index-move';

/** What open and close uses of the chain's core. */
export type BootCore = Pick<
  ChainCore,
  | 'genesis'
  | 'prefix'
  | 'clique'
  | 'closing'
  | 'committedState'
  | 'dataDir'
  | 'genesisHash'
  | 'hashes'
  | 'historyFrom'
  | 'indexFrom'
  | 'lattice'
  | 'journal'
  | 'notifyEach'
  | 'onOperationIndexMove'
  | 'onStateScanProgress'
  | 'opening'
  | 'registry'
  | 'root'
  | 'store'
  | 'storeFailureListeners'
  | 'tasks'
  | 'verifier'
  | 'verifyStateAtOpen'
> &
  CommitCore &
  AdmissionCore;

const STATE_FORMAT_MARK = Uint8Array.of(STATE_FORMAT_CURRENT);

/**
 * Boot and shutdown: a new data directory gets block 0 from the genesis document; an existing one is
 * loaded and checked against its head record and state checksum; then the journal's operations
 * return to the mempool.
 */

export function openChain(core: BootCore): Promise<void> {
  if (core.closing) return Promise.reject(notOpen());
  core.opening ??= doOpen(core).catch(async (error) => {
    const store = core.store;
    core.store = undefined;
    core.opening = undefined;
    await store?.close().catch(() => undefined);
    throw error;
  });
  return core.opening;
}

export function closeChain(core: BootCore): Promise<void> {
  core.closing ??= (async () => {
    await core.opening?.catch(() => undefined);
    await core.tasks.idle();
    const store = core.store;
    core.store = undefined;
    core.journal = undefined;
    await core.verifier.close();
    await store?.close();
  })();
  return core.closing;
}

async function doOpen(core: BootCore): Promise<void> {
  core.registry.seal();
  const store = await ChainStore.open(core.dataDir);
  store.onFailure = (error) => core.notifyEach(core.storeFailureListeners, error);
  core.store = store;
  if ((await store.read(store.meta, META_RESTORING)) !== undefined) {
    throw new StoreError(
      ErrorCode.NOT_ALLOWED,
      'RESTORE_INTERRUPTED',
      `data directory ${core.dataDir} holds a snapshot import that did not finish: remove its chain directory and import the snapshot again`,
    );
  }
  const storedGenesis = await store.read(store.meta, META_GENESIS);
  if (storedGenesis === undefined) {
    core.root = core.committedState(store);
    await initialiseGenesis(core, store);
  } else if (!equalBytes(storedGenesis, core.genesisHash)) {
    throw new StoreError(
      ErrorCode.NOT_ALLOWED,
      'GENESIS_MISMATCH',
      `data directory ${core.dataDir} holds a chain of another genesis (${Buffer.from(storedGenesis).toString('hex')}), not ${Buffer.from(core.genesisHash).toString('hex')}`,
    );
  } else {
    await loadCommitted(core, store);
  }
  core.journal = await Journal.open(store);
  await replayJournal(core);
}

/** Memory takes the committed chain on disk: head, state, Clique producers, history start. */
export async function loadCommitted(core: BootCore, store: ChainStore): Promise<void> {
  const historyFrom = await store.read(store.meta, META_HISTORY_START);
  core.historyFrom = historyFrom === undefined ? 0 : readU32le(historyFrom);
  const loaded = await loadState(core, store);
  const weight = await core.clique.load(store, loaded.root.producers(), loaded.head.height);
  core.root = loaded.root;
  core.indexFrom = await loadIndexFrom(store, loaded.head.height);
  await core.operationTally.load(store);
  adoptCommitted(core, loaded.head, loaded.checksum, weight);
}

/**
 * From which block the history index is complete. A data directory made before the index has no
 * mark: its index starts with the next block, and says so (docs/decisions.md, "History index":
 * building it from the stored blocks is left to a later version, since a read must never say an
 * incomplete history is whole).
 */
async function loadIndexFrom(store: ChainStore, headHeight: number): Promise<number> {
  const stored = await store.read(store.meta, META_INDEX_FROM);
  if (stored !== undefined) return readU32le(stored);
  const from = headHeight + 1;
  await store.commit(
    store.batch().put(META_INDEX_FROM, u32leBytes(from), { sublevel: store.meta }),
  );
  return from;
}

function u32leBytes(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}

/**
 * Block 0 as the genesis document defines it (accounts numbered in order, producers), computed on a
 * layer over the committed state, which is empty: before the chain is opened, or at its creation.
 */
export function genesisBlock(
  core: Pick<BootCore, 'genesis' | 'hashes' | 'lattice' | 'prefix' | 'registry' | 'root'>,
) {
  const { genesis, prefix } = core;
  const layer = core.root.child();
  for (const entry of genesis.accounts) {
    const account = layer.createAccount(decodeAddress(entry.address, prefix).hash160);
    account.balance = entry.balance;
    if (entry.publicKey !== undefined) {
      account.publicKey = Uint8Array.from(Buffer.from(entry.publicKey, 'hex'));
    }
  }
  const producers = genesis.producers.map((p) => layer.numberOf(decodeAddress(p, prefix).hash160)!);
  layer.setProducers(producers.sort((a, b) => a - b));
  const changes = collectChanges(layer, core.registry);
  // The state before block 0 holds one entry, the empty producer set, which block 0 replaces.
  const before = LtHash.identity().update(
    [encodeProducersEntry(encodeProducerList([]))],
    [],
    core.hashes,
  );
  const stateVector = core.lattice.apply(before, changes);
  const header: BlockHeader = {
    height: 0,
    prevHash: ZERO_HASH,
    timestamp: genesis.timestamp,
    producer: layer.producerList![0]!,
    opsRoot: ZERO_HASH,
    stateRoot: stateRootOf(stateVector, core.hashes),
    ver: genesis.ver,
    ver_a: genesis.ver_a,
    payload: new Uint8Array(0),
    producers: carriedProducers(layer, true),
  };
  // Block 0 is defined by the genesis document, not signed by anyone.
  const headerBytes = encodeBlockHeader(header);
  const signature = new Uint8Array(64);
  const hash = computeBlockHash(headerBytes, signature, core.hashes);
  const bytes = encodeBlock(headerBytes, signature, []);
  return { layer, changes, stateVector, header, hash, bytes };
}

/** Block 0 written with the state it creates, in one batch. */
async function initialiseGenesis(core: BootCore, store: ChainStore): Promise<void> {
  const { layer, changes, stateVector, header, hash, bytes } = genesisBlock(core);
  const batch = store.batch();
  const checksum = new StateChecksum();
  // Before block 0 the state holds one entry: the empty producer set.
  checksum.add(ENTRY_PRODUCERS, PRODUCERS_KEY, encodeProducerList([]));
  writeChanges(core, batch, changes, checksum);
  const head: HeadState = {
    height: 0,
    hash,
    timestamp: header.timestamp,
    stateRoot: header.stateRoot,
    stateVector,
  };
  batch.put(heightKey(0), bytes, { sublevel: store.blocks });
  batch.put(hash, heightKey(0), { sublevel: store.hashes });
  batch.put(META_HEAD, encodeHead(head), { sublevel: store.meta });
  batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
  batch.put(META_GENESIS, core.genesisHash, { sublevel: store.meta });
  batch.put(META_STATE_FORMAT, STATE_FORMAT_MARK, { sublevel: store.meta });
  batch.put(META_INDEX_FROM, u32leBytes(0), { sublevel: store.meta });
  core.indexFrom = 0;
  core.clique.writeWeight(batch, store, 0);
  await store.commit(batch);
  core.root.commit(layer);
  adoptCommitted(core, head, checksum, 0);
}

/**
 * The committed state of an existing data directory: nothing per account is read, only the head
 * record (checked against the head block, its state vector against the block's state root), the
 * producer set, the account count and the state checksum the last commit wrote.
 */
async function loadState(
  core: BootCore,
  store: ChainStore,
): Promise<{ root: CommittedState; checksum: StateChecksum; head: HeadState }> {
  const corrupt = (what: string, cause?: unknown): StoreError =>
    new StoreError(
      ErrorCode.INVALID_DATA,
      'CORRUPT_DATADIR',
      `the chain database in ${core.dataDir} is damaged: ${what}`,
      cause === undefined ? {} : { cause },
    );
  try {
    await checkFormat(core, store);
    const producers = await store.read(store.meta, META_PRODUCERS);
    if (producers === undefined) throw corrupt('no producer set');
    const headBytes = await store.read(store.meta, META_HEAD);
    if (headBytes === undefined) throw corrupt('no head record');
    const head = decodeHead(headBytes);
    const blockBytes = await store.read(store.blocks, heightKey(head.height));
    if (blockBytes === undefined) throw corrupt(`head block ${head.height} is missing`);
    const block = decodeBlock(blockBytes, core.hashes);
    if (
      !equalBytes(block.hash, head.hash) ||
      !equalBytes(block.header.stateRoot, head.stateRoot) ||
      !equalBytes(stateRootOf(head.stateVector, core.hashes), head.stateRoot)
    ) {
      throw corrupt(`head block ${head.height} does not match the head record`);
    }
    const stored = await store.read(store.meta, META_STATE_CHECKSUM);
    const checksum = stored === undefined ? undefined : StateChecksum.fromBytes(stored);
    if (checksum === undefined) throw corrupt('no state checksum');
    if (core.verifyStateAtOpen) {
      const scanned = await verifyState(core, store, corrupt);
      if (!scanned.checksum.equals(checksum) || !scanned.vector.equals(head.stateVector)) {
        throw corrupt(
          `the stored state does not match the state root of head block ${head.height}`,
        );
      }
    } else await checkSpacesRegistered(core, store, corrupt);
    const root = core.committedState(store);
    root.reset(await accountCount(store), decodeProducerList(producers));
    return { root, checksum, head };
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw corrupt((error as Error).message, error);
  }
}

/**
 * A data directory of another layout is refused before anything of it is read: a newer one is
 * not understood, an older one (a hash chain for state root) holds blocks whose hashes this node
 * computes otherwise, so its chain cannot continue here. One whose operation index is in the
 * ophash identity's order (STATE_FORMAT_LATTICE) has it moved into signer order first.
 */
async function checkFormat(core: BootCore, store: ChainStore): Promise<void> {
  const format = (await store.read(store.meta, META_STATE_FORMAT))?.[0] ?? 1;
  if (format === STATE_FORMAT_LATTICE) {
    await moveOperationIndex(store, core.onOperationIndexMove);
    return;
  }
  if (format > STATE_FORMAT_CURRENT) {
    throw new StoreError(
      ErrorCode.NOT_ALLOWED,
      'DATADIR_TOO_NEW',
      `data directory ${core.dataDir} holds state of layout ${format}, newer than this chain-node knows: run a newer chain-node`,
    );
  }
  if (format < STATE_FORMAT_LATTICE) {
    throw new StoreError(
      ErrorCode.NOT_ALLOWED,
      'DATADIR_TOO_OLD',
      `data directory ${core.dataDir} holds a chain of layout ${format}, whose state roots are a hash chain of per-block changes; this chain-node's state roots commit to the whole state, so the block hashes differ: move the directory away and start from an empty one (sync again, or import an export of the old node's operations)`,
    );
  }
}

/** Accounts are numbered from 0 without gaps: the count is the last number plus one. */
async function accountCount(store: ChainStore): Promise<number> {
  const last = await store.accounts.keys({ reverse: true, limit: 1 }).all();
  return last.length === 0 ? 0 : readHeightKey(last[0]!) + 1;
}

/** Accounts between two progress reports. */
const SCAN_BATCH = 65_536;

/**
 * One pass over the whole state (`verifyStateAtOpen`), for the open to check against what the
 * last commit stored: the accounts numbered without gaps, each state space registered, the CRC
 * sum of every entry and its LtHash vector (whose hash is the head block's state root).
 */
async function verifyState(
  core: BootCore,
  store: ChainStore,
  corrupt: (what: string) => StoreError,
): Promise<{ checksum: StateChecksum; vector: LtHash }> {
  const total = await accountCount(store);
  const checksum = new StateChecksum();
  const sum = new VectorSum(LtHash.identity(), core.hashes);
  const report = core.onStateScanProgress;
  report?.(0, total);
  let seen = 0;
  const accounts = store.accounts.iterator();
  try {
    for (;;) {
      const entries = await accounts.nextv(SCAN_BATCH);
      if (entries.length === 0) break;
      for (const [key, value] of entries) {
        const number = readHeightKey(key);
        if (number !== seen) throw corrupt(`account ${number} out of sequence`);
        checksum.add(ENTRY_ACCOUNT, key, value);
        sum.add(encodeAccountEntry(number, value));
        seen++;
      }
      report?.(seen, total);
    }
  } finally {
    await accounts.close();
  }
  for await (const [key, value] of store.spaces.iterator()) {
    const split = key.indexOf('\u0000');
    const name = key.slice(0, split);
    if (core.registry.space(name) === undefined) throw unregisteredSpace(name, corrupt);
    checksum.add(ENTRY_SPACE, spaceChecksumKey(key), value);
    sum.add(encodeSpaceEntry(name, key.slice(split + 1), value));
  }
  const producers = await store.read(store.meta, META_PRODUCERS);
  if (producers === undefined) throw corrupt('no producer set');
  checksum.add(ENTRY_PRODUCERS, PRODUCERS_KEY, producers);
  sum.add(encodeProducersEntry(producers));
  return { checksum, vector: sum.flush() };
}

function unregisteredSpace(name: string, corrupt: (what: string) => StoreError): StoreError {
  return corrupt(`state space '${name}' is in the database but not registered`);
}

/**
 * The state spaces the database holds, by one seek each (not a read of their entries): a space of
 * no registered type means the data directory belongs to another build of the node.
 */
async function checkSpacesRegistered(
  core: BootCore,
  store: ChainStore,
  corrupt: (what: string) => StoreError,
): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const range = after === undefined ? {} : { gt: `${after}\u0001` };
    const [key] = await store.spaces.keys({ ...range, limit: 1 }).all();
    if (key === undefined) return;
    const name = key.slice(0, key.indexOf('\u0000'));
    if (core.registry.space(name) === undefined) throw unregisteredSpace(name, corrupt);
    after = name;
  }
}

/** Re-admits journaled operations; those on chain or now invalid are dropped from the journal. */
async function replayJournal(core: BootCore): Promise<void> {
  const journal = core.journal!;
  const dropped: JournalRecord[] = [];
  for (const { record, ops } of await journal.records()) {
    if (ops.length === 0) dropped.push({ ...record, remaining: 1 });
    for (const bytes of ops) {
      try {
        admit(core, decodeOperation(bytes, core.registry, core.hashes), record);
      } catch {
        dropped.push(record);
      }
    }
  }
  await journal.release(dropped);
}

function readU32le(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
}
