import type { Genesis } from '../genesis';
import { decodeRawOperations, encodeRawOperations } from '../operation/operation';
import type { OperationRegistry, StateSpace } from '../operation/registry';
import { ChainCore } from './chain-core';
import type {
  AccountView,
  BlockListener,
  BlockPlacement,
  BuildRequest,
  ChainHead,
  ChainMemoryStats,
  ChainOptions,
  ImportBlocksOptions,
  ImportRun,
  PendingOrigin,
  ReorganizeResult,
  SignRequest,
  StateReadKeys,
} from './chain-types';
import { closeChain, openChain } from './commit/chain-boot';
import { reorganize, rollback } from './commit/chain-rollback';
import {
  type HistoryPage,
  type HistoryQuery,
  tokenOperations,
  walletOperations,
  walletTokenHashes,
} from './history/history-reads';
import { readOneChain } from './history/one-chain-read';
import { checkHeader, importBlock } from './import/block-import';
import { importBlocks } from './import/import-run';
import {
  buildSignedOperation,
  signAndSubmit,
  submitOperation,
  submitRaw,
} from './mempool/mempool-admission';
import { produceBlock, producerAccount } from './production/block-production';
import { fillHistory } from './snapshot/history-fill';
import { RecordsCheck } from './snapshot/record-order';
import { chainSnapshotAt } from './snapshot/snapshot-at';
import { type ChainSnapshot, chainSnapshot } from './snapshot/snapshot-export';
import {
  adoptSnapshot,
  type RestoredSnapshot,
  type RestorePhase,
  restoreSnapshot,
  type SnapshotSource,
} from './snapshot/snapshot-restore';
import { type ServedSnapshot, servedSnapshots, serveSnapshot } from './snapshot/snapshot-serving';
import { describeOperation } from './state/chain-presentation';
import {
  accountByAddress,
  accountByNumber,
  blockInfo,
  blockInfoByHash,
  blockOperations,
  findByNOperation,
  findOperation,
  headOf,
  heightOfHash,
  inspectBlock,
  type OperationRange,
  pendingOperationBytes,
  pendingOperations,
  stateEntry,
  walletInfo,
} from './state/chain-queries';
import type { BlockInfo, OperationObject, WalletInfo } from './state/presentation';
import { loadForRead } from './state/state-access';

export {
  type AccountView,
  type BlockListener,
  type BlockOrigin,
  type BlockPlacement,
  type BuildRequest,
  type ChainHead,
  type ChainMemoryStats,
  type ChainOptions,
  DEFAULT_CHAIN_OPTIONS,
  type ImportBlocksOptions,
  type ImportedBlock,
  type ImportRun,
  type PendingOrigin,
  type ReorganizeResult,
  type SignRequest,
  type StateReadKeys,
} from './chain-types';

export interface Chain {
  open(): Promise<void>;
  /** Idempotent; waits for queued writes, closes LevelDB. */
  close(): Promise<void>;
  readonly genesis: Genesis;
  readonly genesisHash: Uint8Array;
  readonly prefix: string;
  readonly actPrice: bigint;
  /** Blocks that can be rolled back (ChainOptions.maxRollback): a deeper fork is not followed. */
  readonly maxRollback: number;
  readonly registry: OperationRegistry;
  /** Blocks including block 0. */
  blockCount(): number;
  head(): ChainHead;
  /** State root of the head block. */
  stateRoot(): Uint8Array;
  getBlockBytes(height: number): Promise<Uint8Array | undefined>;
  /**
   * The blocks `from` to `to` of the chain (as far as the head), in one pass over the store: it
   * stops before the block that would take them past `maxBytes` (the first always comes).
   */
  getBlockRange(from: number, to: number, maxBytes?: number): Promise<Uint8Array[]>;
  /** Height of the block with this hash, if on the chain. */
  heightOfHash(hash: Uint8Array): Promise<number | undefined>;
  blockInfo(height: number): Promise<BlockInfo>;
  /** A block by its hash (BLOCK_NOT_FOUND naming `hash` otherwise). */
  blockInfoByHash(hash: Uint8Array): Promise<BlockInfo>;
  /**
   * Operations of a block; with `range`, only those at positions `from` (inclusive) to `to`
   * (exclusive), each presented with its own position: a reader paging a full block presents only
   * its page.
   */
  blockOperations(height: number, range?: OperationRange): Promise<OperationObject[]>;
  findOperation(ophash: string): Promise<OperationObject[]>;
  /** A signer's operation by its n_operation, pending or mined ([] when none). */
  findByNOperation(address: string, nOperation: number): Promise<OperationObject[]>;
  /** A page of the operations touching a wallet (the history index), each with its confirmations. */
  walletOperations(address: string, query: HistoryQuery): Promise<HistoryPage>;
  /** A page of a token's operations (the history index). */
  tokenOperations(token: string, query: HistoryQuery): Promise<HistoryPage>;
  /** The hashes of the tokens a wallet's operations moved (at most `max`; balances in the state). */
  walletTokenHashes(address: string, max: number): Promise<Uint8Array[]>;
  /**
   * Runs a read of several blocks (each read an await) so that it sees one chain: done again if a
   * rollback ran beside it (history/one-chain-read.ts). For reads outside the ledger that page
   * through blocks by height.
   */
  readOneChain<T>(read: () => Promise<T>): Promise<T>;
  pendingOperations(): OperationObject[];
  pendingCount(): number;
  /** What the node holds in memory for its state (metrics: memory as the state grows). */
  memoryStats(): ChainMemoryStats;
  walletInfo(address: string): WalletInfo;
  /**
   * Loads from disk the committed entries a read is about to need (the accounts of wallets, state
   * entries), on LevelDB's threads, so that the read that follows finds them in memory; undefined
   * when they all are already.
   */
  loadState(keys: StateReadKeys): Promise<void> | undefined;
  /**
   * A number that changes whenever the committed state (head block, accounts, spaces) does: reads of
   * committed state may be cached until it moves.
   */
  stateRevision(): number;
  accountByAddress(address: string): AccountView | undefined;
  accountByNumber(number: number): AccountView | undefined;
  /**
   * A copy of a state space entry, for packages that keep their state in spaces (tokens,
   * participation); undefined when absent. Reads the committed state (what the head block left), or
   * with `pending` the state the mempool's operations would leave.
   */
  stateEntry<T>(space: StateSpace<T>, key: string, options?: { pending?: boolean }): T | undefined;
  /** Account numbers of the producer set, ascending. */
  producers(): readonly number[];
  /** The account of the producer set that this private key signs for, if any. */
  producerAccount(privateKey: Uint8Array): number | undefined;
  submitOperation(bytes: Uint8Array, options?: { local?: boolean }): Promise<OperationObject>;
  /**
   * Submits every operation of a raw blob (excuteRaw), in order: one promise per operation. A blob
   * that does not decode throws here, before any is submitted. Each operation is decoded once
   * (decodeRaw then submitOperation would decode it twice).
   */
  submitRaw(blob: Uint8Array, options?: { local?: boolean }): Promise<OperationObject>[];
  signAndSubmit(request: SignRequest): Promise<OperationObject>;
  buildSignedOperation(request: BuildRequest): Uint8Array;
  encodeRaw(ops: Uint8Array[]): Uint8Array;
  decodeRaw(blob: Uint8Array): Uint8Array[];
  describeOperation(bytes: Uint8Array): OperationObject;
  produceBlock(
    producerKey: Uint8Array,
    options?: { maxOperations?: number; timestamp?: number; allowEmpty?: boolean },
  ): Promise<BlockInfo | undefined>;
  /** A single block (a gossiped one), validated and committed in its turn: durable when it resolves. */
  importBlock(bytes: Uint8Array): Promise<void>;
  /**
   * The header-level checks of a block, without its body (what gossip checks before forwarding a
   * block): it decodes, extends the head (or `importing`, a block whose header passed and whose
   * import is under way), its timestamp is plausible, and a producer entitled to the next block
   * signed it. Rejects with the import's INVALID_BLOCK reasons; importBlock checks it all again.
   */
  checkHeader(bytes: Uint8Array, importing?: BlockPlacement): Promise<void>;
  /**
   * A run of blocks in order (a sync, a block file): the chain keeps a window of them in flight
   * (each decoded once, its entries loaded and its signatures checked on the verifier threads while
   * the blocks before it apply), writes them behind while more follow, and is durable at the run's
   * end. The first block refused ends the run (`refused`); the source's own error rejects, once
   * the blocks taken from it are imported.
   */
  importBlocks(
    source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
    options?: ImportBlocksOptions,
  ): Promise<ImportRun>;
  rollback(toHeight: number): Promise<void>;
  /** Hash of the block at `height` on this chain. */
  blockHash(height: number): Promise<Uint8Array | undefined>;
  /** Where a block (bytes, not validated) claims to go: INVALID_DATA when it does not decode. */
  inspectBlock(bytes: Uint8Array): BlockPlacement;
  /** Bytes of pending operations in mempool order (at most `max`), e.g. for a peer's mempool request. */
  pendingOperationBytes(max?: number): Uint8Array[];
  /**
   * The recent-signer rule for the next block: false when `account` signed one of the last
   * floor(n/2) blocks (n producers), so it must not sign the next one.
   */
  maySign(account: number): boolean;
  /**
   * The producer in turn for the next block (consensus.ts): the successor of the head's producer in
   * the producer set, or `producers[h mod n]` right after genesis; undefined without producers.
   */
  inTurnProducer(): number | undefined;
  /**
   * Fork choice against a competing branch that forks after block `forkHeight` (at most maxRollback
   * blocks back): rolls back to the fork, imports `blocks`, and keeps the branch only if its tip is
   * preferred (heavier, ties to the lower hash); otherwise restores this chain. One task, so nothing
   * is produced in between. Operations of dropped blocks return to the mempool. An invalid block in
   * the branch restores this chain and rejects with its INVALID_BLOCK error.
   */
  reorganize(forkHeight: number, blocks: readonly Uint8Array[]): Promise<ReorganizeResult>;
  /** Called with each block added to the chain (on a reorganisation, each block of the new branch). */
  onBlock(listener: BlockListener): () => void;
  /** Called with each operation's bytes when it enters the mempool, and why it did. */
  onPending(listener: (bytes: Uint8Array, origin: PendingOrigin) => void): () => void;
  /**
   * Called after each block imported with importBlock, with the seconds its validation and commit
   * took (its wait behind other work not counted); imports are timed only while a listener is set.
   */
  onImportTimed(listener: (seconds: number) => void): () => void;
  /** Called after each reorganisation that adopted a branch, with the blocks it replaced. */
  onReorganized(listener: (depth: number) => void): () => void;
  /**
   * Called once when a write to the chain database failed (a full or failing disk). Memory may
   * then hold blocks that are not on disk, so every later change and read of the chain is
   * refused (STORE_FAILED): the node should stop. A restart resumes from the last block on disk.
   */
  onStoreFailure(listener: (error: Error) => void): () => void;
  /**
   * The first height whose block this node holds: 0, or the height of the snapshot it was restored
   * from (blocks below it are answered with BEFORE_HISTORY).
   */
  historyStart(): number;
  /**
   * About how many operations the stored blocks hold (what replaying them would apply), for a
   * joining peer weighing a replay against a snapshot; undefined until the count started by the
   * first call is done (a pass over the operation index, in the background).
   */
  operationCount(): number | undefined;
  /** The lowest block from which the history index is complete (walletOperations and the like). */
  indexStart(): number;
  /** The snapshot of the head (a chain nothing writes to meanwhile: an offline data directory). */
  snapshot(): ChainSnapshot;
  /**
   * The snapshot at block `height`, below the head as far as the undo records reach (the last
   * maxRollback blocks; ROLLBACK_TOO_DEEP names the lowest height otherwise). Same conditions as
   * snapshot().
   */
  snapshotAt(height: number): Promise<ChainSnapshot>;
  /**
   * Restores an empty data directory from a snapshot, checked against this chain's genesis before
   * anything is written; the chain is not open (open it afterwards).
   */
  restoreSnapshot(
    source: SnapshotSource,
    progress?: (phase: RestorePhase, done: number) => void,
  ): Promise<RestoredSnapshot>;
  /**
   * An open chain at block 0 takes a snapshot in place (a joining node: snapshot sync), checked as
   * restoreSnapshot checks it; then it goes on from the snapshot's block.
   */
  adoptSnapshot(
    source: SnapshotSource,
    progress?: (phase: RestorePhase, done: number) => void,
  ): Promise<RestoredSnapshot>;
  /** Checks a snapshot's records chunk by chunk, in any order (adoptSnapshot's `checked`). */
  recordsCheck(chunks: number): RecordsCheck;
  /**
   * The head's snapshot for peers, read through a database snapshot while the chain goes on and
   * kept in `dir` (its chunks and manifest), so that it outlives the state it was taken of;
   * `signal` stops it.
   */
  serveSnapshot(dir: string, signal?: AbortSignal): Promise<ServedSnapshot>;
  /** The snapshots kept in `dir` that are still of this chain, oldest first (the rest deleted). */
  servedSnapshots(dir: string): Promise<ServedSnapshot[]>;
  /**
   * The blocks right below the history start (ascending, the last at historyStart() - 1), checked
   * against the headers this node holds, stored; returns the new history start (0: whole).
   */
  fillHistory(blocks: readonly Uint8Array[]): Promise<number>;
}

export function createChain(options: ChainOptions): Chain {
  return new LedgerChain(options);
}

/**
 * The `Chain` surface over the chain's modules: boot (chain-boot.ts), mempool admission
 * (mempool-admission.ts), production (block-production.ts), import (block-import.ts), commit
 * (block-commit.ts), rollback and reorganisation (chain-rollback.ts), the Clique state
 * (clique-state.ts) and queries (chain-queries.ts, chain-presentation.ts), all working on the
 * state ChainCore holds. Each method hands over to its module and does nothing else.
 */
class LedgerChain extends ChainCore implements Chain {
  open(): Promise<void> {
    return openChain(this);
  }

  historyStart(): number {
    return this.historyFrom;
  }

  operationCount(): number | undefined {
    return this.operationTally.value(this.store);
  }

  indexStart(): number {
    return this.indexFrom;
  }

  snapshot(): ChainSnapshot {
    return chainSnapshot(this);
  }

  snapshotAt(height: number): Promise<ChainSnapshot> {
    return chainSnapshotAt(this, height);
  }

  restoreSnapshot(
    source: SnapshotSource,
    progress?: (phase: RestorePhase, done: number) => void,
  ): Promise<RestoredSnapshot> {
    if (this.opening !== undefined)
      return Promise.reject(new Error('restore into a chain that is not open'));
    return restoreSnapshot(this, source, progress);
  }

  adoptSnapshot(
    source: SnapshotSource,
    progress?: (phase: RestorePhase, done: number) => void,
  ): Promise<RestoredSnapshot> {
    return adoptSnapshot(this, source, progress);
  }

  recordsCheck(chunks: number): RecordsCheck {
    return new RecordsCheck(this, chunks);
  }

  serveSnapshot(dir: string, signal?: AbortSignal): Promise<ServedSnapshot> {
    return serveSnapshot(this, dir, signal);
  }

  servedSnapshots(dir: string): Promise<ServedSnapshot[]> {
    return servedSnapshots(this, dir);
  }

  fillHistory(blocks: readonly Uint8Array[]): Promise<number> {
    return fillHistory(this, blocks);
  }

  close(): Promise<void> {
    return closeChain(this);
  }

  // ---------------------------------------------------------------- reads

  blockCount(): number {
    return this.headState.height + 1;
  }

  head(): ChainHead {
    return headOf(this);
  }

  stateRoot(): Uint8Array {
    return this.headState.stateRoot.slice();
  }

  stateRevision(): number {
    return this.revision;
  }

  producers(): readonly number[] {
    return [...this.root.producers()];
  }

  heightOfHash(hash: Uint8Array): Promise<number | undefined> {
    return heightOfHash(this, hash);
  }

  inspectBlock(bytes: Uint8Array): BlockPlacement {
    return inspectBlock(this, bytes);
  }

  blockInfo(height: number): Promise<BlockInfo> {
    return blockInfo(this, height);
  }

  blockInfoByHash(hash: Uint8Array): Promise<BlockInfo> {
    return blockInfoByHash(this, hash);
  }

  blockOperations(height: number, range?: OperationRange): Promise<OperationObject[]> {
    return blockOperations(this, height, range);
  }

  findOperation(ophash: string): Promise<OperationObject[]> {
    return findOperation(this, ophash);
  }

  findByNOperation(address: string, nOperation: number): Promise<OperationObject[]> {
    return findByNOperation(this, address, nOperation);
  }

  walletOperations(address: string, query: HistoryQuery): Promise<HistoryPage> {
    return walletOperations(this, address, query);
  }

  tokenOperations(token: string, query: HistoryQuery): Promise<HistoryPage> {
    return tokenOperations(this, token, query);
  }

  walletTokenHashes(address: string, max: number): Promise<Uint8Array[]> {
    return walletTokenHashes(this, address, max);
  }

  readOneChain<T>(read: () => Promise<T>): Promise<T> {
    return readOneChain(this, read);
  }

  pendingOperations(): OperationObject[] {
    return pendingOperations(this);
  }

  pendingCount(): number {
    return this.mempool.size;
  }

  memoryStats(): ChainMemoryStats {
    const { accounts, numbers, spaces } = this.root.stats();
    return {
      stateCache: { accounts, numbers, spaces },
      levelDbBytes: this.store?.levelDbMemoryBytes(),
    };
  }

  pendingOperationBytes(max = Number.POSITIVE_INFINITY): Uint8Array[] {
    return pendingOperationBytes(this, max);
  }

  loadState(keys: StateReadKeys): Promise<void> | undefined {
    return loadForRead(this, keys);
  }

  walletInfo(address: string): WalletInfo {
    return walletInfo(this, address);
  }

  accountByAddress(address: string): AccountView | undefined {
    return accountByAddress(this, address);
  }

  accountByNumber(number: number): AccountView | undefined {
    return accountByNumber(this, number);
  }

  stateEntry<T>(
    space: StateSpace<T>,
    key: string,
    options: { pending?: boolean } = {},
  ): T | undefined {
    return stateEntry(this, space, key, options);
  }

  describeOperation(bytes: Uint8Array): OperationObject {
    return describeOperation(this, bytes);
  }

  // ---------------------------------------------------------------- consensus

  maySign(account: number): boolean {
    return this.clique.maySign(account, this.headState.height, this.root.producers().length);
  }

  inTurnProducer(): number | undefined {
    return this.clique.inTurn(this.root.producers(), this.headState.height);
  }

  producerAccount(privateKey: Uint8Array): number | undefined {
    return producerAccount(this, privateKey);
  }

  // ---------------------------------------------------------------- operations

  encodeRaw(ops: Uint8Array[]): Uint8Array {
    return encodeRawOperations(ops);
  }

  decodeRaw(blob: Uint8Array): Uint8Array[] {
    return decodeRawOperations(blob, this.registry, this.hashes).map((op) => op.bytes);
  }

  buildSignedOperation(request: BuildRequest): Uint8Array {
    return buildSignedOperation(this, request);
  }

  submitOperation(bytes: Uint8Array, options: { local?: boolean } = {}): Promise<OperationObject> {
    return submitOperation(this, bytes, options);
  }

  submitRaw(blob: Uint8Array, options: { local?: boolean } = {}): Promise<OperationObject>[] {
    return submitRaw(this, blob, options);
  }

  signAndSubmit(request: SignRequest): Promise<OperationObject> {
    return signAndSubmit(this, request);
  }

  // ---------------------------------------------------------------- blocks

  produceBlock(
    producerKey: Uint8Array,
    options: { maxOperations?: number; timestamp?: number; allowEmpty?: boolean } = {},
  ): Promise<BlockInfo | undefined> {
    return produceBlock(this, producerKey, options);
  }

  importBlock(bytes: Uint8Array): Promise<void> {
    return importBlock(this, bytes);
  }

  checkHeader(bytes: Uint8Array, importing?: BlockPlacement): Promise<void> {
    return checkHeader(this, bytes, importing);
  }

  importBlocks(
    source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
    options?: ImportBlocksOptions,
  ): Promise<ImportRun> {
    return importBlocks(this, source, options);
  }

  rollback(toHeight: number): Promise<void> {
    return rollback(this, toHeight);
  }

  reorganize(forkHeight: number, blocks: readonly Uint8Array[]): Promise<ReorganizeResult> {
    return reorganize(this, forkHeight, blocks);
  }

  onBlock(listener: BlockListener): () => void {
    this.blockListeners.add(listener);
    return () => this.blockListeners.delete(listener);
  }

  onPending(listener: (bytes: Uint8Array, origin: PendingOrigin) => void): () => void {
    this.pendingListeners.add(listener);
    return () => this.pendingListeners.delete(listener);
  }

  onImportTimed(listener: (seconds: number) => void): () => void {
    this.importListeners.add(listener);
    return () => this.importListeners.delete(listener);
  }

  onReorganized(listener: (depth: number) => void): () => void {
    this.reorgListeners.add(listener);
    return () => this.reorgListeners.delete(listener);
  }

  onStoreFailure(listener: (error: Error) => void): () => void {
    this.storeFailureListeners.add(listener);
    return () => this.storeFailureListeners.delete(listener);
  }
}
