import type { Hashes, Secp256k1Backend } from '@chain/crypto';
import type { Genesis } from '../genesis';
import type { OperationRegistry, StateSpace } from '../operation/registry';
import type { Timelock } from '../state/account';
import type { StateLattice } from '../state/state-lattice';
import type { BlockInfo, OperationObject } from './state/presentation';

/** The options of `createChain` and the types of the `Chain` surface (chain.ts re-exports them). */

export interface ChainOptions {
  dataDir: string;
  genesis: Genesis;
  /**
   * Default: libsecp256k1 (`nativeSecp256k1`) when the optional peer dependency `secp256k1` loads,
   * else the pure implementation (`fastestSecp256k1()`).
   */
  secp256k1?: Secp256k1Backend;
  /** Default: node:crypto (`nativeHashes`). */
  hashes?: Hashes;
  /** Default: `createRegistry()` (transfer and activation). */
  registry?: OperationRegistry;
  /**
   * What moves the head's state vector by each block's changes. Default: a `StateLattice` of
   * `hashes`. Replaced only by measurements (the block-import benchmark replays recorded vectors
   * to time an import without the state root's cost); a lattice that computes anything else makes
   * every block's state root check fail.
   */
  stateLattice?: StateLattice;
  /** Most operations the mempool holds (MEMPOOL_FULL beyond). */
  maxPending?: number;
  /**
   * Most bytes of heap the mempool holds (MEMPOOL_FULL beyond): its entries as estimated by
   * `pendingEntryBytes` (chain/mempool/mempool.ts: the operation, its decoded form, its caches and
   * the state it added to the pending layer). Fit it to the heap: the node gives a share of its
   * --max-heap-mb (apps/node options.ts, `mempoolBudgetBytes`). Operations journaled before a
   * restart are taken back whatever it is (they were acknowledged).
   */
  maxPendingBytes?: number;
  /**
   * Bytes the heap may hold before the heap guard refuses submissions and sheds the state caches
   * (HEAP_REFUSE_SHARE of it): the old generation's limit the process runs under (the node's
   * --max-heap-mb). Default, and at most: V8's heap_size_limit, which adds the young generation's
   * room to the old generation's, so a guard on it alone lets the old generation fill first.
   */
  heapLimitBytes?: number;
  /** Verified signatures remembered (so block import does not verify them again). */
  signatureCacheSize?: number;
  /**
   * Blocks deep a mined operation's verified signature is remembered (for a reorganisation that
   * returns it to the mempool); deeper ones are forgotten, so the cache stays near the mempool's
   * size.
   */
  signatureCacheDepth?: number;
  /**
   * Most operations the recent blocks kept decoded may hold together (a decoded operation costs
   * about 1 KB; the newest block is kept whatever its size), beside their count of at most 32.
   */
  blockCacheOperations?: number;
  /** Blocks that can be rolled back (undo data kept). */
  maxRollback?: number;
  /**
   * Write the history index (operations by wallet and by token) in each block's batch. Off only
   * to measure its cost (the block-import benchmark); a chain that ran without it has no history
   * for those blocks.
   */
  historyIndex?: boolean;
  /**
   * Megabytes of decoded committed state (accounts, addresses, state-space entries) kept in
   * memory; the rest is read from the chain database when needed.
   */
  stateCacheMb?: number;
  /**
   * Read the whole state at open and check it against the stored checksum (a pass over every
   * account: minutes at tens of millions). Off by default: an open reads only the head records.
   */
  verifyStateAtOpen?: boolean;
  /**
   * Told how far a pass over the whole state at open has come (accounts done, accounts in all):
   * the migration of a data directory of an older layout, or `verifyStateAtOpen`.
   */
  onStateScanProgress?: (done: number, total: number) => void;
  /**
   * Told how far the move of an older data directory's operation index into signer order has come
   * (operations moved; all of them, when the data directory keeps its count), once at open:
   * moved 0 first, moved = total at the end.
   */
  onOperationIndexMove?: (moved: number, total: number | undefined) => void;
  /** Seconds a block timestamp may lie in the future. */
  maxFutureSeconds?: number;
  /**
   * Worker threads that verify a block's signatures beside the calling thread (default: cores - 1,
   * at most 3; used with the default libsecp256k1 backend only; 0 = none).
   */
  verifyThreads?: number;
  /**
   * Told of each error a listener (onBlock, onPending, the observers) threw: the chain goes on
   * regardless, this only lets the node log and count it. An error it throws itself is dropped.
   */
  onListenerError?: (error: unknown, listener: ListenerKind) => void;
}

/** Which kind of chain listener failed (ChainOptions.onListenerError). */
export type ListenerKind = 'block' | 'pending' | 'observer';

export const DEFAULT_CHAIN_OPTIONS = {
  maxPending: 200_000,
  maxPendingBytes: 64 * 2 ** 20,
  signatureCacheSize: 262_144,
  signatureCacheDepth: 16,
  blockCacheOperations: 8_192,
  maxRollback: 64,
  historyIndex: true,
  stateCacheMb: 64,
  maxFutureSeconds: 15,
  verifyStateAtOpen: false,
} as const;

/** Committed entries a read is about to need (Chain.loadState). */
export interface StateReadKeys {
  /** Wallets by the hash160 of their address (decodeAddress). */
  wallets?: readonly Uint8Array[];
  accounts?: readonly number[];
  spaces?: ReadonlyArray<readonly [StateSpace<unknown>, string]>;
}

/** An account as read from the committed state. */
export interface AccountView {
  number: number;
  address: string;
  hash160: Uint8Array;
  publicKey: Uint8Array | null;
  active: boolean;
  balance: bigint;
  /** balance - volumeLock - volumeTimelock. */
  spendable: bigint;
  volumeLock: bigint;
  volumeTimelock: bigint;
  timelocks: readonly Timelock[];
  nOperation: number;
  updatedActive: number;
  updatedPassive: number;
  lastZeroFeeBlock: number;
}

export interface SignRequest {
  optype: number;
  subtype?: number;
  /** The signer's wallet address. */
  signer: string;
  privateKey: Uint8Array;
  body: unknown;
  /** Default: the act price (activation: 0 when the account's free operation is unused). */
  fee?: bigint;
}

export interface BuildRequest {
  optype: number;
  subtype?: number;
  signerAccount: number;
  nOperation: number;
  privateKey: Uint8Array;
  body: unknown;
  /** Default: the act price. */
  fee?: bigint;
}

/** Chain.memoryStats: the state cache's entries by kind, LevelDB's own estimate of its memory. */
export interface ChainMemoryStats {
  stateCache: { accounts: number; numbers: number; spaces: number };
  /** Undefined while the chain is not open. */
  levelDbBytes: number | undefined;
}

export interface ChainHead {
  height: number;
  hash: Uint8Array;
  timestamp: number;
  /** Cumulative weight of the blocks after genesis (in turn 2, out of turn 1): the fork choice. */
  weight: number;
}

/** How a block reached the chain: made here, or received (gossip, sync, reorganisation). */
export type BlockOrigin = 'produced' | 'imported';

/**
 * Told of each block added to the chain. `operations` presents the block's operations as
 * getBlockOperations does; call it during the call only (it reads the state as the block left it),
 * and only when needed (it costs a presentation per operation). `optypes` are the operations' types
 * in block order, for a listener that needs no more (counting them cost a read of the block).
 * `bytes` are the block's as committed (gossip publishes a produced block without reading it back).
 */
export type BlockListener = (
  info: BlockInfo,
  origin: BlockOrigin,
  operations: () => OperationObject[],
  optypes: readonly number[],
  bytes: Uint8Array,
) => void;

/**
 * Why an operation entered the mempool: submitted to this node, relayed by a peer, or returned from a
 * block that a rollback or reorganisation took off the chain.
 */
export type PendingOrigin = 'local' | 'network' | 'returned';

export interface BlockPlacement {
  height: number;
  hash: Uint8Array;
  prevHash: Uint8Array;
  producer: number;
  timestamp: number;
}

export interface ReorganizeResult {
  /** True when the given branch won the fork choice and is now the chain. */
  adopted: boolean;
  head: ChainHead;
  /**
   * Where its time went, in ms: waiting for its turn among the chain's tasks, the rollback to the
   * fork, and the branch's import (with the return to its own blocks when not adopted).
   */
  timings: { waitMs: number; rollbackMs: number; branchMs: number };
}

/** A block of an import run, once committed (importBlocks). */
export interface ImportedBlock {
  /** Its place in the run's source, from 0. */
  index: number;
  height: number;
  bytes: Uint8Array;
}

export interface ImportBlocksOptions {
  /** Told of each block once it is committed (in memory; on disk by the run's end at the latest). */
  onImported?: (block: ImportedBlock) => void;
}

/** How a run of importBlocks ended. */
export interface ImportRun {
  /** The blocks imported: the first `imported` of the source. */
  imported: number;
  /**
   * The block that ended the run, and why: refused by the chain's rules (INVALID_BLOCK), or the
   * chain's own error (closed, a failed write). The blocks before it stay imported and are durable.
   */
  refused?: { index: number; bytes: Uint8Array; error: unknown };
}
