import { ErrorCode, getPublicKey, type Hashes, LtHash, type Secp256k1Backend } from '@chain/crypto';
import { fastestSecp256k1, nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { withDefaults } from '@chain/spec';
import { type Block, decodeBlock, decodeSignedHeader, ZERO_HASH } from '../block/block';
import { LedgerError } from '../errors';
import { genesisHash as computeGenesisHash, type Genesis, parseGenesis } from '../genesis';
import { createRegistry } from '../operation/ledger-registry';
import {
  OPERATION_SIGNATURE_LENGTH,
  type Operation,
  operationSigningHash,
} from '../operation/operation';
import type { OperationRegistry, OperationType } from '../operation/registry';
import type { ApplyEnv } from '../state/apply-context';
import type { SignatureCheck } from '../state/apply-operation';
import { CommittedState } from '../state/committed-state';
import { RecentMap } from '../state/recent-map';
import { StateLattice } from '../state/state-lattice';
import { hashKey } from '../state/state-layer';
import { type HeadState, notOpen, nowSeconds, TaskQueue } from './chain-records';
import {
  type BlockListener,
  type BlockOrigin,
  type ChainOptions,
  DEFAULT_CHAIN_OPTIONS,
  type ListenerKind,
  type PendingOrigin,
  type SignRequest,
} from './chain-types';
import { CliqueState } from './consensus/clique-state';
import { OneTaskPerTurn } from './execution/time-slice';
import { SignatureCache } from './import/signature-cache';
import { defaultVerifyThreads, SmallAheadBatches, VerifierPool } from './import/verifier-pool';
import { HeapGuard } from './mempool/heap-guard';
import { Mempool, type Submission, TurnQueue } from './mempool/mempool';
import { OperationTally } from './state/operation-tally';
import type { BlockInfo, OperationObject } from './state/presentation';
import { BlockCache } from './storage/block-cache';
import type { Journal } from './storage/journal';
import { StateChecksum } from './storage/state-checksum';
import { type ChainStore, heightKey } from './storage/store';

const PUBLIC_KEY_CACHE_SIZE = 1024;
const ADDRESS_CACHE_SIZE = 65_536;
/** Receivers' addresses remembered: about 150 bytes each, 2.5 MB at most. */
const HASH_ADDRESS_CACHE_SIZE = 16_384;

/**
 * What every module of the chain works on: its configuration, the committed state in memory (state
 * layer, head, checksum, weight), the mempool, caches and listeners, and the few checks they all
 * use. The jobs (boot, import, commit, rollback, production, admission, queries) are functions of
 * their own modules taking the core; `LedgerChain` (chain.ts) is the core with the `Chain` surface.
 * Fields are read directly (no accessor between a hot loop and its data).
 */
export class ChainCore {
  readonly genesis: Genesis;
  readonly genesisHash: Uint8Array;
  readonly registry: OperationRegistry;
  readonly dataDir: string;
  readonly secp: Secp256k1Backend;
  readonly hashes: Hashes;
  readonly maxPending: number;
  readonly maxPendingBytes: number;
  readonly maxRollback: number;
  readonly maxFutureSeconds: number;
  readonly sigCache: SignatureCache;
  readonly verifier: VerifierPool;
  /** Where the signatures of small blocks queued for import are checked ahead together. */
  readonly smallAhead: SmallAheadBatches;

  readonly stateCacheMb: number;
  /** Whether blocks write the history index (ChainOptions.historyIndex). */
  readonly historyIndex: boolean;
  readonly verifyStateAtOpen: boolean;
  readonly onStateScanProgress: ChainOptions['onStateScanProgress'];
  readonly onOperationIndexMove: ChainOptions['onOperationIndexMove'];
  store: ChainStore | undefined;
  journal: Journal | undefined;
  /** The committed state (on disk behind its caches once open). */
  root: CommittedState;
  /** Bumped whenever the committed state changes (open, block committed, rollback). */
  revision = 0;
  /** Odd while a rollback writes, bumped twice by each (history/one-chain-read.ts). */
  rollbacks = 0;
  mempool: Mempool;
  /** Submissions waiting for their turn's signature batch (mempool-admission.ts). */
  readonly submissions = new TurnQueue<Submission, OperationObject>();
  /** Sign requests waiting for their turn's entries to load (mempool-admission.ts). */
  readonly signRequests = new TurnQueue<SignRequest, OperationObject>();
  headState: HeadState = {
    height: 0,
    hash: ZERO_HASH,
    timestamp: 0,
    stateRoot: ZERO_HASH,
    stateVector: LtHash.identity(),
  };
  /** Moves the head's state vector by each block's changes. */
  readonly lattice: StateLattice;
  checksum = new StateChecksum();
  /** Cumulative weight of the head (fork choice), persisted beside the head record. */
  headWeight = 0;
  /** Operations in the stored blocks (an estimate for joining peers: Chain.operationCount). */
  readonly operationTally = new OperationTally();
  /** The first height whose block is on disk: above 0 after a restored snapshot (META_HISTORY_START). */
  historyFrom = 0;
  /** The first height from which the history index is complete (META_INDEX_FROM). */
  indexFrom = 0;
  readonly clique: CliqueState;
  readonly tasks = new TaskQueue();
  readonly blockListeners = new Set<BlockListener>();
  readonly pendingListeners = new Set<(bytes: Uint8Array, origin: PendingOrigin) => void>();
  /** Told the seconds each imported block took (metrics); the import is timed only when any is. */
  readonly importListeners = new Set<(seconds: number) => void>();
  /** Told the depth of each reorganisation that adopted a branch (metrics). */
  readonly reorgListeners = new Set<(depth: number) => void>();
  /** Told once when a write to the chain database failed (onStoreFailure). */
  readonly storeFailureListeners = new Set<(error: Error) => void>();
  /** ChainOptions.onListenerError: told of each listener's failure (notify*). */
  readonly onListenerError: ((error: unknown, listener: ListenerKind) => void) | undefined;
  /** Addresses of committed accounts by number (numbers never move; bounded). */
  readonly addressCache = new RecentMap<number, string>(ADDRESS_CACHE_SIZE);
  /**
   * Addresses by numberKey of their hash (a transfer's receiver, presented with every operation
   * that pays it): an address is a function of its hash alone, so nothing here ever goes stale.
   */
  readonly hashAddressCache = new RecentMap<string, string>(HASH_ADDRESS_CACHE_SIZE);
  readonly blockCache: BlockCache;
  /** Stored blocks decoded for reads, one per turn of the event loop (chain-queries.ts). */
  readonly blockDecodes = new OneTaskPerTurn();
  /** Refuses submissions and shrinks the state caches when the heap nears its limit. */
  readonly heapGuard: HeapGuard;
  /** sha256(private key) -> public key, so signing with a known key costs no EC multiplication. */
  private readonly publicKeys = new Map<string, Uint8Array>();
  opening: Promise<void> | undefined;
  closing: Promise<void> | undefined;
  /**
   * Blocks inspectBlock decoded, by their bytes, for the importBlock that usually follows (a
   * gossiped block is inspected, then imported). An import run decodes its blocks itself.
   */
  readonly inspected = new WeakMap<Uint8Array, Block>();

  constructor(given: ChainOptions) {
    const options = withDefaults(DEFAULT_CHAIN_OPTIONS, given);
    this.genesis = parseGenesis(options.genesis);
    this.genesisHash = computeGenesisHash(this.genesis);
    this.dataDir = options.dataDir;
    // libsecp256k1 when the optional `secp256k1` package is installed (chain-node depends on it).
    this.secp = options.secp256k1 ?? fastestSecp256k1();
    this.hashes = options.hashes ?? nativeHashes;
    this.registry = options.registry ?? createRegistry();
    this.lattice = options.stateLattice ?? new StateLattice(this.hashes);
    this.maxPending = options.maxPending;
    this.maxPendingBytes = options.maxPendingBytes;
    this.heapGuard = new HeapGuard(() => this.root.shrink(), options.heapLimitBytes);
    this.maxRollback = options.maxRollback;
    this.stateCacheMb = options.stateCacheMb;
    this.historyIndex = options.historyIndex;
    this.verifyStateAtOpen = options.verifyStateAtOpen;
    this.onStateScanProgress = options.onStateScanProgress;
    this.onOperationIndexMove = options.onOperationIndexMove;
    this.root = this.committedState(undefined);
    this.mempool = new Mempool(this.root);
    this.maxFutureSeconds = options.maxFutureSeconds;
    this.onListenerError = options.onListenerError;
    this.sigCache = new SignatureCache(options.signatureCacheSize, options.signatureCacheDepth);
    this.blockCache = new BlockCache(options.blockCacheOperations);
    this.verifier = new VerifierPool(
      this.secp,
      this.secp === nativeSecp256k1 ? (options.verifyThreads ?? defaultVerifyThreads()) : 0,
    );
    this.smallAhead = new SmallAheadBatches(this.verifier);
    this.clique = new CliqueState((height) => this.producerOf(height));
  }

  /** The committed state read from `store` through caches of the configured size. */
  committedState(store: ChainStore | undefined): CommittedState {
    const registry = this.registry;
    return new CommittedState(
      store,
      (name, bytes) => registry.space(name)!.decode(bytes),
      this.stateCacheMb,
    );
  }

  get prefix(): string {
    return this.genesis.prefix;
  }

  get actPrice(): bigint {
    return this.genesis.actPrice;
  }

  requireStore(): ChainStore {
    if (this.store === undefined || this.journal === undefined || this.closing) throw notOpen();
    // Memory may hold blocks that the failed write did not put on disk: nothing goes on.
    if (this.store.failed !== undefined) throw this.store.failed;
    return this.store;
  }

  /**
   * The producer of the block at `height` on disk: from its block, or its header below the history
   * start. Also while the chain opens (the Clique state loads the recent producers).
   */
  async producerOf(height: number): Promise<number | undefined> {
    const store = this.store;
    if (store === undefined || this.closing) throw notOpen();
    if (height >= this.historyFrom) {
      const bytes = await store.read(store.blocks, heightKey(height));
      return bytes === undefined ? undefined : decodeBlock(bytes, this.hashes).header.producer;
    }
    const bytes = await store.read(store.headers, heightKey(height));
    return bytes === undefined ? undefined : decodeSignedHeader(bytes, this.hashes).header.producer;
  }

  async getBlockBytes(height: number): Promise<Uint8Array | undefined> {
    const store = this.requireStore();
    if (!Number.isInteger(height) || height < 0 || height > this.headState.height) return undefined;
    return store.read(store.blocks, heightKey(height));
  }

  async getBlockRange(from: number, to: number, maxBytes = Number.POSITIVE_INFINITY) {
    const store = this.requireStore();
    const first = Math.max(0, Math.ceil(from));
    const last = Math.min(Math.floor(to), this.headState.height);
    if (!(first <= last)) return [];
    return store.readRange(store.blocks, heightKey(first), heightKey(last), maxBytes);
  }

  /** Hash of the block at `height` on this chain. */
  async blockHash(height: number): Promise<Uint8Array | undefined> {
    if (height === this.headState.height) return this.headState.hash.slice();
    const cached = this.blockCache.get(height);
    if (cached !== undefined) return cached.block.hash.slice();
    if (height < this.historyFrom && height >= 0) {
      const store = this.requireStore();
      const header = await store.read(store.headers, heightKey(height));
      return header === undefined ? undefined : decodeSignedHeader(header, this.hashes).hash;
    }
    const bytes = await this.getBlockBytes(height);
    return bytes === undefined ? undefined : decodeBlock(bytes, this.hashes).hash;
  }

  typeOf(optype: number, subtype: number): OperationType {
    const type = this.registry.get(optype, subtype);
    if (type === undefined) {
      throw new LedgerError(
        ErrorCode.INVALID_OPERATION,
        'UNKNOWN_OPTYPE',
        `unknown operation type ${optype}/${subtype}`,
        { param: 'optype' },
      );
    }
    return type;
  }

  signingHashOf(op: Operation): Uint8Array {
    return this.signingHashOfBytes(op.bytes);
  }

  /** The signing hash of a signed operation's bytes. */
  signingHashOfBytes(operation: Uint8Array): Uint8Array {
    const unsigned = operation.subarray(0, operation.length - OPERATION_SIGNATURE_LENGTH);
    return operationSigningHash(this.genesisHash, unsigned, this.hashes);
  }

  /** Verifies an operation's signature, unless verified before against the same key. */
  readonly checkSignature: SignatureCheck = (op, publicKey) => {
    const key = op.digestHex;
    if (this.sigCache.has(key, publicKey)) return true;
    const ok = this.secp.verify(op.signature, this.signingHashOf(op), publicKey);
    if (ok) this.sigCache.add(key, publicKey);
    return ok;
  };

  /** Where pending operations apply: the block after the head, at the current time. */
  pendingEnv(): ApplyEnv {
    return {
      genesis: this.genesis,
      actPrice: this.actPrice,
      hashes: this.hashes,
      registry: this.registry,
      height: this.headState.height + 1,
      timestamp: nowSeconds(),
      pending: true,
    };
  }

  blockEnv(height: number, timestamp: number): ApplyEnv {
    return {
      genesis: this.genesis,
      actPrice: this.actPrice,
      hashes: this.hashes,
      registry: this.registry,
      height,
      timestamp,
      pending: false,
    };
  }

  publicKeyOf(privateKey: Uint8Array): Uint8Array {
    const id = hashKey(this.hashes.sha256(privateKey));
    let publicKey = this.publicKeys.get(id);
    if (publicKey === undefined) {
      publicKey = getPublicKey(privateKey);
      if (this.publicKeys.size >= PUBLIC_KEY_CACHE_SIZE) this.publicKeys.clear();
      this.publicKeys.set(id, publicKey);
    }
    return publicKey;
  }

  notifyPending(bytes: Uint8Array, origin: PendingOrigin): void {
    for (const listener of this.pendingListeners) {
      try {
        listener(bytes, origin);
      } catch (error) {
        // A listener's failure is its own; the operation is pending regardless.
        try {
          this.onListenerError?.(error, 'pending');
        } catch {
          // Reporting must not fail the chain's work either.
        }
      }
    }
  }

  /** Tells each listener of `listeners` the value; a listener's failure is its own. */
  notifyEach<T>(listeners: ReadonlySet<(value: T) => void>, value: T): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        // Observers (metrics) must not fail the chain's work.
        try {
          this.onListenerError?.(error, 'observer');
        } catch {
          // Reporting must not fail the chain's work either.
        }
      }
    }
  }

  notifyBlock(
    info: BlockInfo,
    origin: BlockOrigin,
    operations: () => OperationObject[],
    optypes: readonly number[],
    bytes: Uint8Array,
  ): void {
    for (const listener of this.blockListeners) {
      try {
        listener(info, origin, operations, optypes, bytes);
      } catch (error) {
        // Listeners must not undo a committed block; the next listener runs all the same.
        try {
          this.onListenerError?.(error, 'block');
        } catch {
          // Reporting must not fail the chain's work either.
        }
      }
    }
  }
}
