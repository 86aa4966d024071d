import {
  addressFromHash160,
  addressFromPublicKey,
  ChainError,
  decodeAddress,
  ErrorCode,
  equalBytes,
  getPublicKey,
  type Hashes,
  hash160,
  normalizeAddress,
  type Secp256k1Backend,
} from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { decodeOpHash, opHashIdentity, opHashIdentityOf } from '@chain/ophash';
import {
  type Block,
  type BlockHeader,
  blockSigningHash,
  computeBlockHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  operationsRoot,
  ZERO_HASH,
} from '../block/block';
import { plainBytes } from '../codec/byte-reader';
import { LedgerError, StoreError } from '../errors';
import { genesisHash as computeGenesisHash, type Genesis, parseGenesis } from '../genesis';
import { createRegistry } from '../operation/ledger-registry';
import {
  decodeOperation,
  decodeRawOperations,
  encodeRawOperations,
  encodeUnsignedOperation,
  NEW_ACCOUNT,
  OPERATION_SIGNATURE_LENGTH,
  type Operation,
  operationSigningHash,
  peekOperation,
} from '../operation/operation';
import type {
  BlockHookInfo,
  OperationRegistry,
  OperationType,
  PresentContext,
  StateSpace,
} from '../operation/registry';
import {
  decodeAccount,
  encodeAccount,
  lockedByTime,
  spendableAt,
  type Timelock,
} from '../state/account';
import { type ApplyEnv, LayerContext } from '../state/apply-context';
import { applyOperation, IN_PLACE, type SignatureCheck } from '../state/apply-operation';
import {
  type BlockChanges,
  collectChanges,
  decodeUndo,
  encodeUndo,
  nextStateRoot,
} from '../state/block-changes';
import { hashKey, StateLayer } from '../state/state-layer';
import { blockWeight, inTurnProducer } from './consensus';
import { decodeWeight, encodeWeight, isPreferredTip, recentSignerWindow } from './fork-choice';
import { Journal, type JournalRecord } from './journal';
import { Mempool, type PendingEntry } from './mempool';
import {
  type BlockInfo,
  type OperationObject,
  type OperationPlacement,
  presentBlock,
  presentOperation,
  presentWallet,
  type WalletInfo,
} from './presentation';
import { SignatureCache, sameKey } from './signature-cache';
import {
  decodeProducerList,
  ENTRY_ACCOUNT,
  ENTRY_PRODUCERS,
  ENTRY_SPACE,
  encodeProducerList,
  PRODUCERS_KEY,
  StateChecksum,
  spaceChecksumKey,
} from './state-checksum';
import {
  type ChainBatch,
  ChainStore,
  heightKey,
  META_GENESIS,
  META_HEAD,
  META_LEGACY_CHECKSUM,
  META_PRODUCERS,
  META_STATE_CHECKSUM,
  readHeightKey,
  spaceKey,
} from './store';
import {
  defaultVerifyThreads,
  VerifierPool,
  type VerifyItem,
  verifyBlockAhead,
} from './verifier-pool';

export interface ChainOptions {
  dataDir: string;
  genesis: Genesis;
  /** Default: libsecp256k1 (`nativeSecp256k1`). */
  secp256k1?: Secp256k1Backend;
  /** Default: node:crypto (`nativeHashes`). */
  hashes?: Hashes;
  /** Default: `createRegistry()` (transfer and activation). */
  registry?: OperationRegistry;
  /** Most operations the mempool holds (MEMPOOL_FULL beyond). */
  maxPending?: number;
  /** Verified signatures remembered (so block import does not verify them again). */
  signatureCacheSize?: number;
  /**
   * Most operations the recent blocks kept decoded may hold together (a decoded operation costs
   * about 1 KB; the newest block is kept whatever its size), beside their count of at most 32.
   */
  blockCacheOperations?: number;
  /** Blocks that can be rolled back (undo data kept). */
  maxRollback?: number;
  /** Seconds a block timestamp may lie in the future. */
  maxFutureSeconds?: number;
  /**
   * Worker threads that verify a block's signatures beside the calling thread (default: cores - 1,
   * at most 3; used with the default libsecp256k1 backend only; 0 = none).
   */
  verifyThreads?: number;
}

export const DEFAULT_CHAIN_OPTIONS = {
  maxPending: 200_000,
  signatureCacheSize: 262_144,
  blockCacheOperations: 8_192,
  maxRollback: 64,
  maxFutureSeconds: 15,
} as const;

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
}

export interface Chain {
  open(): Promise<void>;
  /** Idempotent; waits for queued writes, closes LevelDB. */
  close(): Promise<void>;
  readonly genesis: Genesis;
  readonly genesisHash: Uint8Array;
  readonly prefix: string;
  readonly actPrice: bigint;
  readonly registry: OperationRegistry;
  /** Blocks including block 0. */
  blockCount(): number;
  head(): ChainHead;
  /** State root of the head block. */
  stateRoot(): Uint8Array;
  getBlockBytes(height: number): Promise<Uint8Array | undefined>;
  /** Height of the block with this hash, if on the chain. */
  heightOfHash(hash: Uint8Array): Promise<number | undefined>;
  blockInfo(height: number): Promise<BlockInfo>;
  blockOperations(height: number): Promise<OperationObject[]>;
  findOperation(ophash: string): Promise<OperationObject[]>;
  pendingOperations(): OperationObject[];
  pendingCount(): number;
  walletInfo(address: string): WalletInfo;
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
  signAndSubmit(request: SignRequest): Promise<OperationObject>;
  buildSignedOperation(request: BuildRequest): Uint8Array;
  encodeRaw(ops: Uint8Array[]): Uint8Array;
  decodeRaw(blob: Uint8Array): Uint8Array[];
  describeOperation(bytes: Uint8Array): OperationObject;
  produceBlock(
    producerKey: Uint8Array,
    options?: { maxOperations?: number; timestamp?: number },
  ): Promise<BlockInfo | undefined>;
  importBlock(bytes: Uint8Array): Promise<void>;
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
  onBlock(listener: (info: BlockInfo, origin: BlockOrigin) => void): () => void;
  /** Called with each operation's bytes when it enters the mempool, and why it did. */
  onPending(listener: (bytes: Uint8Array, origin: PendingOrigin) => void): () => void;
}

interface HeadState {
  height: number;
  hash: Uint8Array;
  timestamp: number;
  stateRoot: Uint8Array;
}

interface LoadedBlock {
  block: Block;
  ops: Operation[];
  fees: bigint;
  zeroFee: number;
}

/** A block whose operations have been applied to a layer, ready to be committed. */
interface ExecutedBlock {
  header: BlockHeader;
  headerBytes: Uint8Array;
  signature: Uint8Array;
  hash: Uint8Array;
  bytes: Uint8Array;
  ops: Operation[];
  layer: StateLayer;
  changes: BlockChanges;
  fees: bigint;
  zeroFee: number;
  /** An imported block's: the key each operation's signature verified against. */
  verifiedKeys?: readonly (Uint8Array | undefined)[];
}

const BLOCK_CACHE_SIZE = 32;
/** Meta key of the head's cumulative weight. */
const META_WEIGHT = 'weight';
/** Recent block producers kept in memory: enough for the recent-signer rule of 256 producers. */
const RECENT_PRODUCERS_KEPT = 128;
const PUBLIC_KEY_CACHE_SIZE = 1024;

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function invalidBlock(reason: string, message: string, cause?: unknown): LedgerError {
  return new LedgerError(ErrorCode.INVALID_BLOCK, reason, message, {
    param: 'block',
    ...(cause === undefined ? {} : { cause }),
  });
}

function notOpen(): LedgerError {
  return new LedgerError(ErrorCode.NOT_ALLOWED, 'CHAIN_CLOSED', 'the chain is not open');
}

function encodeHead(head: HeadState): Uint8Array {
  const out = new Uint8Array(4 + 32 + 4 + 32);
  const view = new DataView(out.buffer);
  view.setUint32(0, head.height, true);
  out.set(head.hash, 4);
  view.setUint32(36, head.timestamp, true);
  out.set(head.stateRoot, 40);
  return out;
}

function decodeHead(bytes: Uint8Array): HeadState {
  if (bytes.length !== 72) throw new Error('bad head record');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    height: view.getUint32(0, true),
    hash: bytes.slice(4, 36),
    timestamp: view.getUint32(36, true),
    stateRoot: bytes.slice(40, 72),
  };
}

function feeSummary(ops: readonly Operation[]): { fees: bigint; zeroFee: number } {
  let fees = 0n;
  let zeroFee = 0;
  for (const op of ops) {
    fees += op.fee;
    if (op.fee === 0n) zeroFee++;
  }
  return { fees, zeroFee };
}

function identityOf(op: Operation): string {
  return opHashIdentityOf(op.signer, op.nOperation, op.digestHex);
}

/** `height u32le || index u32le`. */
function opLocation(height: number, index: number): Uint8Array {
  const out = new Uint8Array(8);
  out[0] = height;
  out[1] = height >>> 8;
  out[2] = height >>> 16;
  out[3] = height >>> 24;
  out[4] = index;
  out[5] = index >>> 8;
  out[6] = index >>> 16;
  out[7] = index >>> 24;
  return out;
}

/** A block queued for import, its signatures checked ahead (see verifyBlockAhead). */
interface AheadBlock {
  block: Block;
  verifiedKeys: (Uint8Array | undefined)[];
}

/** Serialises the chain's state-changing tasks (produce, import, rollback). */
class TaskQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
  idle(): Promise<unknown> {
    return this.tail;
  }
}

export function createChain(options: ChainOptions): Chain {
  return new LedgerChain(options);
}

class LedgerChain implements Chain {
  readonly genesis: Genesis;
  readonly genesisHash: Uint8Array;
  readonly registry: OperationRegistry;
  private readonly dataDir: string;
  private readonly secp: Secp256k1Backend;
  private readonly hashes: Hashes;
  private readonly maxPending: number;
  private readonly maxRollback: number;
  private readonly maxFutureSeconds: number;
  private readonly sigCache: SignatureCache;
  private readonly blockCacheOperations: number;
  private readonly verifier: VerifierPool;

  private store: ChainStore | undefined;
  private journal: Journal | undefined;
  private root = new StateLayer();
  /** Bumped whenever the committed state changes (open, block committed, rollback). */
  private revision = 0;
  private mempool = new Mempool(this.root);
  private headState: HeadState = {
    height: 0,
    hash: ZERO_HASH,
    timestamp: 0,
    stateRoot: ZERO_HASH,
  };
  private checksum: StateChecksum;
  private readonly tasks = new TaskQueue();
  private readonly blockListeners = new Set<(info: BlockInfo, origin: BlockOrigin) => void>();
  private readonly pendingListeners = new Set<(bytes: Uint8Array, origin: PendingOrigin) => void>();
  /** Cumulative weight of the head (fork choice), persisted beside the head record. */
  private headWeight = 0;
  /** Producer account of recent blocks by height (the recent-signer rule looks back floor(n/2)). */
  private readonly recentProducers = new Map<number, number>();
  private readonly addressCache = new Map<number, string>();
  private readonly blockCache = new Map<number, LoadedBlock>();
  /** sha256(private key) -> public key, so signing with a known key costs no EC multiplication. */
  private readonly publicKeys = new Map<string, Uint8Array>();
  private opening: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: ChainOptions) {
    this.genesis = parseGenesis(options.genesis);
    this.genesisHash = computeGenesisHash(this.genesis);
    this.dataDir = options.dataDir;
    this.secp = options.secp256k1 ?? nativeSecp256k1;
    this.hashes = options.hashes ?? nativeHashes;
    this.registry = options.registry ?? createRegistry();
    this.maxPending = options.maxPending ?? DEFAULT_CHAIN_OPTIONS.maxPending;
    this.maxRollback = options.maxRollback ?? DEFAULT_CHAIN_OPTIONS.maxRollback;
    this.maxFutureSeconds = options.maxFutureSeconds ?? DEFAULT_CHAIN_OPTIONS.maxFutureSeconds;
    this.sigCache = new SignatureCache(
      options.signatureCacheSize ?? DEFAULT_CHAIN_OPTIONS.signatureCacheSize,
    );
    this.blockCacheOperations =
      options.blockCacheOperations ?? DEFAULT_CHAIN_OPTIONS.blockCacheOperations;
    this.checksum = new StateChecksum();
    this.verifier = new VerifierPool(
      this.secp,
      this.secp === nativeSecp256k1 ? (options.verifyThreads ?? defaultVerifyThreads()) : 0,
    );
  }

  get prefix(): string {
    return this.genesis.prefix;
  }

  get actPrice(): bigint {
    return this.genesis.actPrice;
  }

  // ---------------------------------------------------------------- lifecycle

  open(): Promise<void> {
    if (this.closing) return Promise.reject(notOpen());
    this.opening ??= this.doOpen().catch(async (error) => {
      const store = this.store;
      this.store = undefined;
      this.opening = undefined;
      await store?.close().catch(() => undefined);
      throw error;
    });
    return this.opening;
  }

  private async doOpen(): Promise<void> {
    this.registry.seal();
    const store = await ChainStore.open(this.dataDir);
    this.store = store;
    const storedGenesis = await store.read(store.meta, META_GENESIS);
    if (storedGenesis === undefined) {
      await this.initialiseGenesis(store);
    } else if (!equalBytes(storedGenesis, this.genesisHash)) {
      throw new StoreError(
        ErrorCode.NOT_ALLOWED,
        'GENESIS_MISMATCH',
        `data directory ${this.dataDir} holds a chain of another genesis (${Buffer.from(storedGenesis).toString('hex')}), not ${Buffer.from(this.genesisHash).toString('hex')}`,
      );
    } else {
      await this.loadState(store);
    }
    await this.loadConsensusState(store);
    this.journal = await Journal.open(store);
    await this.replayJournal();
  }

  /**
   * Head weight and the producers of recent blocks. A data directory written before weights were
   * recorded gets its weight computed once from its blocks (with the current producer set).
   */
  private async loadConsensusState(store: ChainStore): Promise<void> {
    const head = this.headState.height;
    const from = Math.max(1, head - RECENT_PRODUCERS_KEPT + 1);
    const stored = await store.read(store.meta, META_WEIGHT);
    let weight = 0;
    let parentProducer: number | undefined;
    for (let h = stored === undefined ? 1 : from; h <= head; h++) {
      const bytes = await store.read(store.blocks, heightKey(h));
      const producer =
        bytes === undefined ? undefined : decodeBlock(bytes, this.hashes).header.producer;
      if (producer !== undefined && h >= from) this.recentProducers.set(h, producer);
      if (producer !== undefined && stored === undefined) {
        weight += blockWeight(this.root.producers(), { height: h, parentProducer }, producer);
      }
      parentProducer = producer;
    }
    this.headWeight = stored === undefined ? weight : decodeWeight(stored);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.opening?.catch(() => undefined);
      await this.tasks.idle();
      const store = this.store;
      this.store = undefined;
      this.journal = undefined;
      await this.verifier.close();
      await store?.close();
    })();
    return this.closing;
  }

  private requireStore(): ChainStore {
    if (this.store === undefined || this.journal === undefined || this.closing) throw notOpen();
    return this.store;
  }

  /** Block 0: the genesis accounts (numbers in order) and producers, in one batch. */
  private async initialiseGenesis(store: ChainStore): Promise<void> {
    const layer = this.root.child();
    for (const entry of this.genesis.accounts) {
      const account = layer.createAccount(decodeAddress(entry.address, this.prefix).hash160);
      account.balance = entry.balance;
      if (entry.publicKey !== undefined) {
        account.publicKey = Uint8Array.from(Buffer.from(entry.publicKey, 'hex'));
      }
    }
    const producers = this.genesis.producers.map(
      (p) => layer.numberOf(decodeAddress(p, this.prefix).hash160)!,
    );
    layer.setProducers(producers.sort((a, b) => a - b));
    const changes = collectChanges(layer, this.registry);
    const header: BlockHeader = {
      height: 0,
      prevHash: ZERO_HASH,
      timestamp: this.genesis.timestamp,
      producer: layer.producerList![0]!,
      opsRoot: ZERO_HASH,
      stateRoot: nextStateRoot(this.genesisHash, changes, this.hashes),
      ver: this.genesis.ver,
      ver_a: this.genesis.ver_a,
      payload: new Uint8Array(0),
    };
    // Block 0 is defined by the genesis document, not signed by anyone.
    const headerBytes = encodeBlockHeader(header);
    const signature = new Uint8Array(64);
    const hash = computeBlockHash(headerBytes, signature, this.hashes);
    const bytes = encodeBlock(headerBytes, signature, []);
    const batch = store.batch();
    const checksum = new StateChecksum();
    // Before block 0 the state holds one entry: the empty producer set.
    checksum.add(ENTRY_PRODUCERS, PRODUCERS_KEY, encodeProducerList([]));
    this.writeChanges(batch, changes, checksum);
    const head = { height: 0, hash, timestamp: header.timestamp, stateRoot: header.stateRoot };
    batch.put(heightKey(0), bytes, { sublevel: store.blocks });
    batch.put(hash, heightKey(0), { sublevel: store.hashes });
    batch.put(META_HEAD, encodeHead(head), { sublevel: store.meta });
    batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
    batch.put(META_GENESIS, this.genesisHash, { sublevel: store.meta });
    batch.put(META_WEIGHT, encodeWeight(0), { sublevel: store.meta });
    await store.commit(batch);
    layer.mergeIntoParent();
    this.mempool = new Mempool(this.root);
    this.checksum = checksum;
    this.headState = head;
    this.revision++;
  }

  private async loadState(store: ChainStore): Promise<void> {
    const corrupt = (what: string, cause?: unknown): StoreError =>
      new StoreError(
        ErrorCode.INVALID_DATA,
        'CORRUPT_DATADIR',
        `the chain database in ${this.dataDir} is damaged: ${what}`,
        cause === undefined ? {} : { cause },
      );
    const root = new StateLayer();
    const checksum = new StateChecksum();
    try {
      const accounts = store.accounts.iterator();
      try {
        for (;;) {
          const entries = await accounts.nextv(4096);
          if (entries.length === 0) break;
          for (const [key, value] of entries) {
            const number = readHeightKey(key);
            if (number !== root.accounts.size) throw corrupt(`account ${number} out of sequence`);
            const account = decodeAccount(number, value);
            root.accounts.set(number, account);
            root.numbers.set(hashKey(account.hash160), number);
            checksum.add(ENTRY_ACCOUNT, key, value);
          }
        }
      } finally {
        await accounts.close();
      }
      root.nextNumber = root.accounts.size;
      for await (const [key, value] of store.spaces.iterator()) {
        const split = key.indexOf('\u0000');
        const name = key.slice(0, split);
        const space = this.registry.space(name);
        if (space === undefined) {
          throw corrupt(`state space '${name}' is in the database but not registered`);
        }
        root.spaceSet(name, key.slice(split + 1), space.decode(plainBytes(value)));
        checksum.add(ENTRY_SPACE, spaceChecksumKey(key), value);
      }
      const producers = await store.read(store.meta, META_PRODUCERS);
      if (producers === undefined) throw corrupt('no producer set');
      root.setProducers(decodeProducerList(producers));
      checksum.add(ENTRY_PRODUCERS, PRODUCERS_KEY, producers);
      const headBytes = await store.read(store.meta, META_HEAD);
      if (headBytes === undefined) throw corrupt('no head record');
      const head = decodeHead(headBytes);
      const blockBytes = await store.read(store.blocks, heightKey(head.height));
      if (blockBytes === undefined) throw corrupt(`head block ${head.height} is missing`);
      const block = decodeBlock(blockBytes, this.hashes);
      if (
        !equalBytes(block.hash, head.hash) ||
        !equalBytes(block.header.stateRoot, head.stateRoot)
      ) {
        throw corrupt(`head block ${head.height} does not match the head record`);
      }
      const stored = await store.read(store.meta, META_STATE_CHECKSUM);
      if (stored === undefined) await this.adoptLegacyChecksum(store, checksum, corrupt);
      else if (!StateChecksum.fromBytes(stored)?.equals(checksum)) {
        throw corrupt(
          `the stored state does not match the state root of head block ${head.height}`,
        );
      }
      this.root = root;
      this.mempool = new Mempool(root);
      this.checksum = checksum;
      this.headState = head;
      this.revision++;
    } catch (error) {
      if (error instanceof StoreError) throw error;
      throw corrupt((error as Error).message, error);
    }
  }

  /**
   * A data directory written before the CRC checksum holds a SHA-256 one under another key, which
   * this version does not compute: its state is taken as loaded and the new checksum written, so
   * every later open checks it.
   */
  private async adoptLegacyChecksum(
    store: ChainStore,
    checksum: StateChecksum,
    corrupt: (what: string) => StoreError,
  ): Promise<void> {
    if ((await store.read(store.meta, META_LEGACY_CHECKSUM)) === undefined) {
      throw corrupt('no state checksum');
    }
    const batch = store.batch();
    batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
    batch.del(META_LEGACY_CHECKSUM, { sublevel: store.meta });
    await store.commit(batch);
  }

  /** Re-admits journaled operations; those on chain or now invalid are dropped from the journal. */
  private async replayJournal(): Promise<void> {
    const journal = this.journal!;
    const dropped: JournalRecord[] = [];
    for (const { record, ops } of await journal.records()) {
      if (ops.length === 0) dropped.push({ ...record, remaining: 1 });
      for (const bytes of ops) {
        try {
          this.admit(decodeOperation(bytes, this.registry, this.hashes), record);
        } catch {
          dropped.push(record);
        }
      }
    }
    await journal.release(dropped);
  }

  // ---------------------------------------------------------------- reads

  blockCount(): number {
    return this.headState.height + 1;
  }

  head(): ChainHead {
    const { height, hash, timestamp } = this.headState;
    return { height, hash: hash.slice(), timestamp, weight: this.headWeight };
  }

  async blockHash(height: number): Promise<Uint8Array | undefined> {
    if (height === this.headState.height) return this.headState.hash.slice();
    const cached = this.blockCache.get(height);
    if (cached !== undefined) return cached.block.hash.slice();
    const bytes = await this.getBlockBytes(height);
    return bytes === undefined ? undefined : decodeBlock(bytes, this.hashes).hash;
  }

  inspectBlock(bytes: Uint8Array): BlockPlacement {
    const { header, hash } = decodeBlock(bytes, this.hashes);
    return {
      height: header.height,
      hash,
      prevHash: header.prevHash,
      producer: header.producer,
      timestamp: header.timestamp,
    };
  }

  pendingOperationBytes(max = Number.POSITIVE_INFINITY): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const entry of this.mempool.entries.values()) {
      if (out.length >= max) break;
      out.push(entry.op.bytes);
    }
    return out;
  }

  maySign(account: number): boolean {
    const window = recentSignerWindow(this.root.producers().length);
    const next = this.headState.height + 1;
    for (let h = Math.max(1, next - window); h < next; h++) {
      if (this.recentProducers.get(h) === account) return false;
    }
    return true;
  }

  inTurnProducer(): number | undefined {
    const { height } = this.headState;
    return inTurnProducer(this.root.producers(), {
      height: height + 1,
      parentProducer: height === 0 ? undefined : this.recentProducers.get(height),
    });
  }

  /**
   * Producer account of the block at `height` on this chain (undefined for genesis, which has no
   * parent producer for the rotation): from memory, else from the store.
   */
  private async producerAt(height: number): Promise<number | undefined> {
    if (height < 1) return undefined;
    const recent = this.recentProducers.get(height);
    if (recent !== undefined) return recent;
    const bytes = await this.getBlockBytes(height);
    return bytes === undefined ? undefined : decodeBlock(bytes, this.hashes).header.producer;
  }

  /** The recent-signer rule for a block at `height` (its parent is the head). */
  private async signedRecently(account: number, height: number): Promise<boolean> {
    const window = recentSignerWindow(this.root.producers().length);
    for (let h = Math.max(1, height - window); h < height; h++) {
      let producer = this.recentProducers.get(h);
      if (producer === undefined) {
        const bytes = await this.getBlockBytes(h);
        if (bytes === undefined) continue;
        producer = decodeBlock(bytes, this.hashes).header.producer;
      }
      if (producer === account) return true;
    }
    return false;
  }

  stateRoot(): Uint8Array {
    return this.headState.stateRoot.slice();
  }

  producers(): readonly number[] {
    return [...this.root.producers()];
  }

  async getBlockBytes(height: number): Promise<Uint8Array | undefined> {
    const store = this.requireStore();
    if (!Number.isInteger(height) || height < 0 || height > this.headState.height) return undefined;
    return store.read(store.blocks, heightKey(height));
  }

  async heightOfHash(hash: Uint8Array): Promise<number | undefined> {
    const store = this.requireStore();
    const value = await store.read(store.hashes, hash);
    return value === undefined ? undefined : readHeightKey(value);
  }

  private checkHeight(height: number): void {
    if (!Number.isInteger(height) || height < 0 || height > this.headState.height) {
      throw new LedgerError(
        ErrorCode.INVALID_BLOCK,
        'BLOCK_NOT_FOUND',
        `block ${String(height)} does not exist (blocks 0 to ${this.headState.height})`,
        { param: 'block' },
      );
    }
  }

  private async loadBlock(height: number): Promise<LoadedBlock> {
    const cached = this.blockCache.get(height);
    if (cached !== undefined) return cached;
    const store = this.requireStore();
    const bytes = await store.read(store.blocks, heightKey(height));
    if (bytes === undefined) {
      throw new StoreError(ErrorCode.INVALID_DATA, 'CORRUPT_DATADIR', `block ${height} is missing`);
    }
    const block = decodeBlock(bytes, this.hashes);
    const ops = block.operations.map((b) => decodeOperation(b, this.registry, this.hashes, true));
    const loaded = this.summarise(block, ops);
    this.cacheBlock(height, loaded);
    return loaded;
  }

  private summarise(block: Block, ops: Operation[]): LoadedBlock {
    return { block, ops, ...feeSummary(ops) };
  }

  /**
   * Bounded by blocks and by operations: 32 full blocks of a busy chain would hold hundreds of
   * thousands of decoded operations. The oldest go first.
   */
  private cacheBlock(height: number, loaded: LoadedBlock): void {
    this.blockCache.delete(height);
    let operations = loaded.ops.length;
    for (const cached of this.blockCache.values()) operations += cached.ops.length;
    for (const [oldest, cached] of this.blockCache) {
      if (this.blockCache.size < BLOCK_CACHE_SIZE && operations <= this.blockCacheOperations) break;
      this.blockCache.delete(oldest);
      operations -= cached.ops.length;
    }
    this.blockCache.set(height, loaded);
  }

  private blockInfoOf(loaded: LoadedBlock): BlockInfo {
    return presentBlock({
      header: loaded.block.header,
      hash: loaded.block.hash,
      size: loaded.block.bytes.length,
      operations: loaded.ops.length,
      zeroFeeOperations: loaded.zeroFee,
      fees: loaded.fees,
      producerAddress: this.addressOf(loaded.block.header.producer, this.root),
    });
  }

  async blockInfo(height: number): Promise<BlockInfo> {
    this.requireStore();
    this.checkHeight(height);
    return this.blockInfoOf(await this.loadBlock(height));
  }

  async blockOperations(height: number): Promise<OperationObject[]> {
    this.requireStore();
    this.checkHeight(height);
    const loaded = await this.loadBlock(height);
    return loaded.ops.map((op, index) => this.presentMined(loaded, op, index));
  }

  private presentMined(loaded: LoadedBlock, op: Operation, index: number): OperationObject {
    const header = loaded.block.header;
    return this.present(op, this.root, {
      block: header.height,
      time: header.timestamp,
      opblock: index,
      maturation: this.headState.height - header.height,
      nopsp: loaded.ops.length,
      niopsp: loaded.zeroFee,
    });
  }

  async findOperation(ophash: string): Promise<OperationObject[]> {
    const store = this.requireStore();
    const identity = opHashIdentity(decodeOpHash(ophash, 'ophash'));
    const pending = this.mempool.byIdentity.get(identity);
    if (pending !== undefined) {
      let index = 0;
      for (const entry of this.mempool.entries.values()) {
        if (entry === pending) break;
        index++;
      }
      return [this.presentPending(pending, index)];
    }
    const location = await store.read(store.ops, identity);
    if (location === undefined) return [];
    const view = new DataView(location.buffer, location.byteOffset, location.byteLength);
    const height = view.getUint32(0, true);
    const index = view.getUint32(4, true);
    if (height > this.headState.height) return [];
    const loaded = await this.loadBlock(height);
    const op = loaded.ops[index];
    return op === undefined ? [] : [this.presentMined(loaded, op, index)];
  }

  pendingOperations(): OperationObject[] {
    const out: OperationObject[] = [];
    let index = 0;
    for (const entry of this.mempool.entries.values())
      out.push(this.presentPending(entry, index++));
    return out;
  }

  pendingCount(): number {
    return this.mempool.size;
  }

  stateRevision(): number {
    return this.revision;
  }

  walletInfo(address: string): WalletInfo {
    const { hash160: h } = decodeAddress(address, this.prefix, 'wallet');
    const number = this.root.numberOf(h);
    const account = number === undefined ? undefined : this.root.account(number);
    return presentWallet(normalizeAddress(address), account, this.headState.height);
  }

  accountByAddress(address: string): AccountView | undefined {
    const number = this.root.numberOf(decodeAddress(address, this.prefix, 'wallet').hash160);
    return number === undefined ? undefined : this.accountByNumber(number);
  }

  accountByNumber(number: number): AccountView | undefined {
    const a = this.root.account(number);
    if (a === undefined) return undefined;
    const height = this.headState.height;
    return {
      number: a.number,
      address: this.addressOf(a.number, this.root),
      hash160: a.hash160.slice(),
      publicKey: a.publicKey?.slice() ?? null,
      active: a.publicKey !== null,
      balance: a.balance,
      spendable: spendableAt(a, height),
      volumeLock: a.volumeLock,
      volumeTimelock: lockedByTime(a, height),
      timelocks: a.timelocks.map((t) => ({ ...t })),
      nOperation: a.nOperation,
      updatedActive: a.updatedActive,
      updatedPassive: a.updatedPassive,
      lastZeroFeeBlock: a.lastZeroFeeBlock,
    };
  }

  stateEntry<T>(
    space: StateSpace<T>,
    key: string,
    options: { pending?: boolean } = {},
  ): T | undefined {
    if (this.registry.space(space.name) !== (space as unknown)) {
      throw new LedgerError(
        ErrorCode.NOT_ALLOWED,
        'UNREGISTERED_SPACE',
        `state space ${space.name} is not registered with the chain's registry`,
      );
    }
    const state = options.pending === true ? this.mempool.layer : this.root;
    const value = state.spaceGet(space.name, key) as T | undefined;
    return value === undefined ? undefined : space.clone(value);
  }

  // ---------------------------------------------------------------- presentation

  /** Address of an account number in `state`; committed ones are cached (numbers never move). */
  private addressOf(number: number, state: StateLayer): string {
    const cached = this.addressCache.get(number);
    if (cached !== undefined) return cached;
    const account = state.account(number);
    if (account === undefined) return `#${number}`;
    const address = addressFromHash160(this.prefix, account.hash160, this.hashes);
    if (this.root.account(number) !== undefined) this.addressCache.set(number, address);
    return address;
  }

  private presentContext(op: Operation, type: OperationType, state: StateLayer): PresentContext {
    const carried = type.signerKey?.(op.body);
    const signerAddress =
      op.signer !== NEW_ACCOUNT && state.account(op.signer) !== undefined
        ? this.addressOf(op.signer, state)
        : carried !== undefined
          ? addressFromPublicKey(this.prefix, carried, this.hashes)
          : `#${op.signer}`;
    const root = this.root;
    return {
      prefix: this.prefix,
      hashes: this.hashes,
      signerAddress,
      addressOf: (n) => this.addressOf(n, state),
      addressOfHash160: (h) => addressFromHash160(this.prefix, h, this.hashes),
      get<T>(space: StateSpace<T>, key: string): T | undefined {
        const value = root.spaceGet(space.name, key) as T | undefined;
        return value === undefined ? undefined : space.clone(value);
      },
    };
  }

  private present(
    op: Operation,
    state: StateLayer,
    placement: OperationPlacement,
  ): OperationObject {
    const type = this.registry.get(op.optype, op.subtype)!;
    return presentOperation(
      op,
      type,
      placement,
      this.actPrice,
      this.presentContext(op, type, state),
    );
  }

  private presentPending(entry: PendingEntry, index: number): OperationObject {
    return this.present(entry.op, this.mempool.layer, {
      block: 0,
      time: entry.arrival,
      opblock: index,
      maturation: null,
      nopsp: this.mempool.size,
      niopsp: this.mempool.zeroFeeCount,
    });
  }

  describeOperation(bytes: Uint8Array): OperationObject {
    const op = decodeOperation(bytes, this.registry, this.hashes);
    return this.present(op, this.mempool.layer, {
      block: 0,
      time: nowSeconds(),
      opblock: 0,
      maturation: null,
      nopsp: 1,
      niopsp: op.fee === 0n ? 1 : 0,
    });
  }

  // ---------------------------------------------------------------- operations

  encodeRaw(ops: Uint8Array[]): Uint8Array {
    return encodeRawOperations(ops);
  }

  decodeRaw(blob: Uint8Array): Uint8Array[] {
    return decodeRawOperations(blob, this.registry, this.hashes).map((op) => op.bytes);
  }

  private typeOf(optype: number, subtype: number): OperationType {
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

  buildSignedOperation(request: BuildRequest): Uint8Array {
    const subtype = request.subtype ?? 0;
    const type = this.typeOf(request.optype, subtype);
    const unsigned = encodeUnsignedOperation(
      {
        optype: request.optype,
        subtype,
        signer: request.signerAccount,
        nOperation: request.nOperation,
        fee: request.fee ?? this.actPrice,
      },
      type,
      request.body,
    );
    const signature = this.secp.sign(
      operationSigningHash(this.genesisHash, unsigned, this.hashes),
      request.privateKey,
    );
    const bytes = new Uint8Array(unsigned.length + OPERATION_SIGNATURE_LENGTH);
    bytes.set(unsigned, 0);
    bytes.set(signature, unsigned.length);
    return bytes;
  }

  private signingHashOf(op: Operation): Uint8Array {
    return this.signingHashOfBytes(op.bytes);
  }

  /** The signing hash of a signed operation's bytes. */
  private signingHashOfBytes(operation: Uint8Array): Uint8Array {
    const unsigned = operation.subarray(0, operation.length - OPERATION_SIGNATURE_LENGTH);
    return operationSigningHash(this.genesisHash, unsigned, this.hashes);
  }

  private readonly checkSignature: SignatureCheck = (op, publicKey) => {
    const key = op.digestHex;
    if (this.sigCache.has(key, publicKey)) return true;
    const ok = this.secp.verify(op.signature, this.signingHashOf(op), publicKey);
    if (ok) this.sigCache.add(key, publicKey);
    return ok;
  };

  private pendingEnv(): ApplyEnv {
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

  /**
   * Validates `op` against the pending state and adds it to the mempool, synchronously (so
   * concurrent submitters see each other's n_operation).
   */
  private admit(op: Operation, journal: JournalRecord | undefined): PendingEntry {
    if (this.mempool.size >= this.maxPending) {
      throw new LedgerError(
        ErrorCode.MEMPOOL_FULL,
        'MEMPOOL_FULL',
        `the mempool is full (${this.maxPending} pending operations); retry after the next block`,
      );
    }
    const key = op.digestHex;
    if (this.mempool.entries.has(key)) {
      throw new LedgerError(
        ErrorCode.DUPLICATE_OPERATION,
        'DUPLICATE_OPERATION',
        'this operation is already pending',
      );
    }
    const type = this.typeOf(op.optype, op.subtype);
    const applied = applyOperation(
      this.mempool.layer,
      this.pendingEnv(),
      op,
      type,
      this.checkSignature,
    );
    const entry: PendingEntry = {
      op,
      type,
      key,
      identity: identityOf(op),
      arrival: nowSeconds(),
      signer: applied.signer,
      publicKey: applied.publicKey,
      journal,
    };
    this.mempool.insert(entry);
    return entry;
  }

  private notifyPending(bytes: Uint8Array, origin: PendingOrigin): void {
    for (const listener of this.pendingListeners) {
      try {
        listener(bytes, origin);
      } catch {
        // A listener's failure is its own; the operation is pending regardless.
      }
    }
  }

  /** Admits, journals when local, and resolves once durable. */
  private async admitAndJournal(op: Operation, local: boolean): Promise<OperationObject> {
    const entry = this.admit(op, undefined);
    const result = this.presentPending(entry, this.mempool.size - 1);
    let durable: Promise<void> | undefined;
    if (local) {
      const appended = this.journal!.append(op.bytes);
      entry.journal = appended.record;
      durable = appended.durable;
    }
    this.notifyPending(op.bytes, local ? 'local' : 'network');
    if (durable !== undefined) await durable;
    return result;
  }

  async submitOperation(
    bytes: Uint8Array,
    options: { local?: boolean } = {},
  ): Promise<OperationObject> {
    const store = this.requireStore();
    const op = decodeOperation(bytes, this.registry, this.hashes);
    try {
      return await this.admitAndJournal(op, options.local ?? true);
    } catch (error) {
      // A replay of a mined operation fails on its n_operation; say what it really is.
      if (
        error instanceof ChainError &&
        (error.code === ErrorCode.INVALID_N_OPERATION ||
          error.reason === 'ALREADY_ACTIVE' ||
          error.reason === 'ACCOUNT_EXISTS')
      ) {
        if ((await store.read(store.ops, identityOf(op))) !== undefined) {
          throw new LedgerError(
            ErrorCode.DUPLICATE_OPERATION,
            'DUPLICATE_OPERATION',
            'this operation is already on chain',
          );
        }
      }
      throw error;
    }
  }

  async signAndSubmit(request: SignRequest): Promise<OperationObject> {
    this.requireStore();
    const subtype = request.subtype ?? 0;
    const type = this.typeOf(request.optype, subtype);
    const signerHash = decodeAddress(request.signer, this.prefix, 'signer').hash160;
    const pending = this.mempool.layer;
    const number = pending.numberOf(signerHash);
    const account = number === undefined ? undefined : pending.account(number);
    let signingKey: Uint8Array;
    try {
      signingKey = this.publicKeyOf(request.privateKey);
    } catch (error) {
      throw error instanceof ChainError ? error.withParam('privateKey') : error;
    }
    let body = request.body;
    if (type.signerKey !== undefined) {
      const given = (body as { publicKey?: unknown } | undefined)?.publicKey;
      if (!(given instanceof Uint8Array)) body = { ...(body as object), publicKey: signingKey };
      const carried = type.signerKey(body);
      if (carried.length !== 33 || !equalBytes(hash160(carried, this.hashes), signerHash)) {
        throw new LedgerError(
          ErrorCode.SIGNATURE_MISMATCH,
          'KEY_NOT_OF_ACCOUNT',
          `the public key is not the key of wallet ${request.signer}`,
          { param: 'signer' },
        );
      }
    } else if (account === undefined) {
      throw new LedgerError(
        ErrorCode.INVALID_ACCOUNT,
        'UNKNOWN_ACCOUNT',
        `wallet ${request.signer} is not on chain (it has never received anything)`,
        { param: 'signer' },
      );
    }
    let fee = request.fee;
    if (fee === undefined) {
      const zeroFeeFree = (account?.lastZeroFeeBlock ?? -1) !== this.headState.height + 1;
      fee = type.signerKey !== undefined && zeroFeeFree ? 0n : this.actPrice;
    }
    const bytes = this.buildSignedOperation({
      optype: request.optype,
      subtype,
      signerAccount: account?.number ?? NEW_ACCOUNT,
      nOperation: (account?.nOperation ?? 0) + 1,
      privateKey: request.privateKey,
      body,
      fee,
    });
    const op = decodeOperation(bytes, this.registry, this.hashes);
    // Signed here with the key the operation must verify against: as good as verified.
    const expected = type.signerKey?.(op.body) ?? account?.publicKey ?? undefined;
    if (expected !== undefined && expected !== null && equalBytes(expected, signingKey)) {
      this.sigCache.add(op.digestHex, expected);
    }
    return this.admitAndJournal(op, true);
  }

  // ---------------------------------------------------------------- blocks

  private blockEnv(height: number, timestamp: number): ApplyEnv {
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

  /** Rewards: the registered hooks, or by default the fees to the producer's account. */
  private runBlockHooks(layer: StateLayer, env: ApplyEnv, info: BlockHookInfo): void {
    const hooks = this.registry.hooks();
    const ctx = new LayerContext(layer, env, -1);
    if (hooks.length === 0) {
      if (info.fees > 0n) ctx.credit(info.producer, info.fees);
      return;
    }
    for (const hook of hooks) hook.afterOperations(ctx, info);
  }

  private publicKeyOf(privateKey: Uint8Array): Uint8Array {
    const id = hashKey(this.hashes.sha256(privateKey));
    let publicKey = this.publicKeys.get(id);
    if (publicKey === undefined) {
      publicKey = getPublicKey(privateKey);
      if (this.publicKeys.size >= PUBLIC_KEY_CACHE_SIZE) this.publicKeys.clear();
      this.publicKeys.set(id, publicKey);
    }
    return publicKey;
  }

  producerAccount(privateKey: Uint8Array): number | undefined {
    const number = this.root.numberOf(hash160(this.publicKeyOf(privateKey), this.hashes));
    return number !== undefined && this.root.producers().includes(number) ? number : undefined;
  }

  private producerAccountOf(producerKey: Uint8Array): number {
    const number = this.producerAccount(producerKey);
    if (number === undefined) {
      throw new LedgerError(
        ErrorCode.NOT_ALLOWED,
        'NOT_A_PRODUCER',
        'the producer key does not belong to an account of the producer set',
      );
    }
    return number;
  }

  async produceBlock(
    producerKey: Uint8Array,
    options: { maxOperations?: number; timestamp?: number } = {},
  ): Promise<BlockInfo | undefined> {
    this.requireStore();
    return this.tasks.run(async () => {
      this.requireStore();
      if (this.mempool.size === 0) return undefined;
      const producer = this.producerAccountOf(producerKey);
      if (await this.signedRecently(producer, this.headState.height + 1)) {
        throw new LedgerError(
          ErrorCode.NOT_ALLOWED,
          'RECENT_SIGNER',
          `producer account ${producer} signed one of the last ${recentSignerWindow(this.root.producers().length)} blocks`,
        );
      }
      const limit = Math.max(
        1,
        Math.min(
          options.maxOperations ?? Number.POSITIVE_INFINITY,
          this.genesis.maxBlockOperations,
        ),
      );
      const height = this.headState.height + 1;
      const timestamp = Math.max(options.timestamp ?? nowSeconds(), this.headState.timestamp);
      const env = this.blockEnv(height, timestamp);
      const layer = this.root.child();
      const included: PendingEntry[] = [];
      const dropped: PendingEntry[] = [];
      for (const entry of this.mempool.entries.values()) {
        if (included.length >= limit) break;
        try {
          applyOperation(layer, env, entry.op, entry.type, this.checkSignature);
          included.push(entry);
        } catch {
          dropped.push(entry);
        }
      }
      if (included.length === 0) {
        this.dropEntries(dropped, true);
        return undefined;
      }
      const ops = included.map((e) => e.op);
      const { fees, zeroFee } = feeSummary(ops);
      this.runBlockHooks(layer, env, { height, timestamp, producer, fees, operations: ops.length });
      const changes = collectChanges(layer, this.registry);
      const header: BlockHeader = {
        height,
        prevHash: this.headState.hash,
        timestamp,
        producer,
        opsRoot: operationsRoot(
          ops.map((op) => op.digest),
          this.hashes,
        ),
        stateRoot: nextStateRoot(this.headState.stateRoot, changes, this.hashes),
        ver: this.genesis.ver,
        ver_a: this.genesis.ver_a,
        payload: new Uint8Array(0),
      };
      const headerBytes = encodeBlockHeader(header);
      const signature = this.secp.sign(
        blockSigningHash(this.genesisHash, headerBytes, this.hashes),
        producerKey,
      );
      const executed: ExecutedBlock = {
        header,
        headerBytes,
        signature,
        hash: computeBlockHash(headerBytes, signature, this.hashes),
        bytes: encodeBlock(
          headerBytes,
          signature,
          ops.map((op) => op.bytes),
        ),
        ops,
        layer,
        changes,
        fees,
        zeroFee,
      };
      // commitBlock rebuilds the pending state without them.
      this.dropEntries(dropped, false);
      return this.commitBlock(executed, 'produced');
    });
  }

  private dropEntries(entries: readonly PendingEntry[], rebuild: boolean): void {
    if (entries.length === 0) return;
    const records: JournalRecord[] = [];
    for (const entry of entries) {
      this.mempool.remove(entry.key);
      if (entry.journal !== undefined) records.push(entry.journal);
    }
    if (rebuild) this.rebuildPending(this.mempool.drain(this.root));
    void this.journal?.release(records).catch(() => undefined);
  }

  async importBlock(bytes: Uint8Array): Promise<void> {
    this.requireStore();
    // A block handed over while others wait (a syncing caller keeping a few in flight) has its
    // signatures checked on the verifier threads while the ones before it apply.
    const ahead = this.importsWaiting > 0 ? this.verifyAhead(bytes) : undefined;
    this.importsWaiting++;
    try {
      return await this.tasks.run(async () => {
        this.requireStore();
        await ahead?.settle();
        const executed = await this.executeImported(bytes);
        await this.commitBlock(executed, 'imported');
      });
    } finally {
      this.importsWaiting--;
    }
  }

  /** importBlock calls not finished yet. */
  private importsWaiting = 0;
  /** Blocks verifyAhead decoded, by their bytes, with what it found of their signatures. */
  private readonly decodedAhead = new WeakMap<Uint8Array, AheadBlock>();

  private verifyAhead(bytes: Uint8Array): { settle(): Promise<void> } | undefined {
    let block: Block;
    try {
      block = decodeBlock(bytes, this.hashes);
    } catch {
      // A malformed block is refused by executeImported, with the reason.
      return undefined;
    }
    const ahead: AheadBlock = { block, verifiedKeys: new Array(block.operations.length) };
    this.decodedAhead.set(bytes, ahead);
    return verifyBlockAhead(block.operations, ahead.verifiedKeys, {
      pool: this.verifier,
      itemOf: (operation) => this.aheadCheckOf(operation),
    });
  }

  /** The signature check of an encoded operation in the committed state (see verifyBlockAhead). */
  private aheadCheckOf(operation: Uint8Array): VerifyItem | null {
    const peek = peekOperation(operation, this.registry);
    if (peek === undefined) return null;
    let key: Uint8Array | null | undefined;
    if (peek.type.signerKey === undefined) key = this.root.account(peek.signer)?.publicKey;
    else {
      try {
        key = peek.type.signerKey(decodeOperation(operation, this.registry, this.hashes).body);
      } catch {
        return null;
      }
    }
    if (key == null) return null;
    return {
      signature: operation.subarray(operation.length - OPERATION_SIGNATURE_LENGTH),
      hash: this.signingHashOfBytes(operation),
      publicKey: key,
    };
  }

  reorganize(forkHeight: number, blocks: readonly Uint8Array[]): Promise<ReorganizeResult> {
    this.requireStore();
    return this.tasks.run(async () => {
      this.requireStore();
      const old = this.headState;
      const oldTip = { weight: this.headWeight, hash: old.hash };
      if (!Number.isInteger(forkHeight) || forkHeight < 0 || forkHeight >= old.height) {
        throw invalidBlock(
          'BAD_FORK_POINT',
          `a branch must fork below the head (height ${old.height}), not after ${String(forkHeight)}`,
        );
      }
      const ours: Uint8Array[] = [];
      for (let h = forkHeight + 1; h <= old.height; h++) {
        ours.push((await this.loadBlock(h)).block.bytes);
      }
      const returned = await this.rollbackTo(forkHeight);
      let failure: unknown;
      try {
        for (const bytes of blocks) {
          await this.commitBlock(await this.executeImported(bytes), 'imported');
        }
      } catch (error) {
        failure = error;
      }
      const adopted =
        failure === undefined &&
        isPreferredTip({ weight: this.headWeight, hash: this.headState.hash }, oldTip);
      if (!adopted) {
        await this.rollbackTo(forkHeight);
        for (const bytes of ours) {
          await this.commitBlock(await this.executeImported(bytes), 'imported');
        }
      }
      this.notifyReturned(returned);
      if (failure !== undefined) throw failure;
      return { adopted, head: this.head() };
    });
  }

  /** Tells listeners about rolled-back operations that are pending again (to be relayed). */
  private notifyReturned(ops: readonly Operation[]): void {
    for (const op of ops) {
      if (this.mempool.entries.has(op.digestHex)) this.notifyPending(op.bytes, 'returned');
    }
  }

  /** Full validation of a block extending the head, applied to a fresh layer (not committed). */
  private async executeImported(bytes: Uint8Array): Promise<ExecutedBlock> {
    const ahead = this.decodedAhead.get(bytes);
    // Its bytes may live on (a caller's queue, the block cache): what was found ahead must not.
    this.decodedAhead.delete(bytes);
    let block: Block;
    try {
      block = ahead?.block ?? decodeBlock(bytes, this.hashes);
    } catch (error) {
      throw invalidBlock('MALFORMED_BLOCK', `malformed block: ${(error as Error).message}`, error);
    }
    const { header } = block;
    const head = this.headState;
    if (header.height !== head.height + 1) {
      throw invalidBlock(
        'NOT_NEXT_BLOCK',
        `block ${header.height} does not extend the head (height ${head.height})`,
      );
    }
    if (!equalBytes(header.prevHash, head.hash)) {
      throw invalidBlock('WRONG_PARENT', `block ${header.height} does not build on the head block`);
    }
    if (header.timestamp < head.timestamp) {
      throw invalidBlock('TIMESTAMP_TOO_EARLY', `block timestamp is before its parent's`);
    }
    if (header.timestamp > nowSeconds() + this.maxFutureSeconds) {
      throw invalidBlock('TIMESTAMP_IN_FUTURE', `block timestamp is too far in the future`);
    }
    const producer = this.root.account(header.producer);
    if (
      producer === undefined ||
      producer.publicKey === null ||
      !this.root.producers().includes(header.producer)
    ) {
      throw invalidBlock('NOT_A_PRODUCER', `account ${header.producer} is not a block producer`);
    }
    if (await this.signedRecently(header.producer, header.height)) {
      throw invalidBlock(
        'RECENT_SIGNER',
        `producer account ${header.producer} signed one of the ${recentSignerWindow(this.root.producers().length)} blocks before block ${header.height}`,
      );
    }
    if (
      !this.secp.verify(
        block.signature,
        blockSigningHash(this.genesisHash, block.headerBytes, this.hashes),
        producer.publicKey,
      )
    ) {
      throw invalidBlock('BAD_BLOCK_SIGNATURE', 'the producer signature does not verify');
    }
    // An empty block is valid (producing none is this node's policy, not a consensus rule).
    if (block.operations.length > this.genesis.maxBlockOperations) {
      throw invalidBlock(
        'TOO_MANY_OPERATIONS',
        `block holds ${block.operations.length} operations, at most ${this.genesis.maxBlockOperations}`,
      );
    }
    const ops: Operation[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < block.operations.length; i++) {
      let op: Operation;
      try {
        op = decodeOperation(block.operations[i]!, this.registry, this.hashes, true);
      } catch (error) {
        throw invalidBlock('BAD_OPERATION', `operation ${i}: ${(error as Error).message}`, error);
      }
      const key = op.digestHex;
      if (seen.has(key)) throw invalidBlock('DUPLICATE_OPERATION', `operation ${i} is repeated`);
      seen.add(key);
      ops.push(op);
    }
    if (
      !equalBytes(
        header.opsRoot,
        operationsRoot(
          ops.map((op) => op.digest),
          this.hashes,
        ),
      )
    ) {
      throw invalidBlock('BAD_OPERATIONS_ROOT', 'the operations root does not match');
    }
    const verifiedKeys = ahead?.verifiedKeys ?? new Array<Uint8Array | undefined>(ops.length);
    await this.verifyBlockSignatures(ops, verifiedKeys);
    const env = this.blockEnv(header.height, header.timestamp);
    const layer = this.root.child();
    let i = 0;
    // Checked above, unless the key is one the block itself brings (checked now).
    const checkSignature: SignatureCheck = (op, publicKey) =>
      (ops[i] === op && sameKey(verifiedKeys[i], publicKey)) || this.checkSignature(op, publicKey);
    for (; i < ops.length; i++) {
      const op = ops[i]!;
      try {
        applyOperation(
          layer,
          env,
          op,
          this.registry.get(op.optype, op.subtype)!,
          checkSignature,
          IN_PLACE,
        );
      } catch (error) {
        throw invalidBlock(
          'INVALID_OPERATION_IN_BLOCK',
          `operation ${i}: ${(error as Error).message}`,
          error,
        );
      }
    }
    const { fees, zeroFee } = feeSummary(ops);
    this.runBlockHooks(layer, env, {
      height: header.height,
      timestamp: header.timestamp,
      producer: header.producer,
      fees,
      operations: ops.length,
    });
    const changes = collectChanges(layer, this.registry);
    if (!equalBytes(header.stateRoot, nextStateRoot(head.stateRoot, changes, this.hashes))) {
      throw invalidBlock('BAD_STATE_ROOT', 'the state root does not match the applied operations');
    }
    return {
      header,
      headerBytes: block.headerBytes,
      signature: block.signature,
      hash: block.hash,
      bytes: block.bytes,
      ops,
      layer,
      changes,
      fees,
      zeroFee,
      verifiedKeys,
    };
  }

  /**
   * One pass over a block's signatures before anything is applied, skipping those verified before
   * (ahead of the block, in the mempool); `verifiedKeys[i]` ends as the key operation i verified
   * against. Keys that only appear inside this block (a new activation followed by operations of
   * that account) are checked while applying, and so is a signature checked ahead against a key
   * that is no longer the signer's when the operation applies (the check there compares keys).
   */
  private async verifyBlockSignatures(
    ops: readonly Operation[],
    verifiedKeys: (Uint8Array | undefined)[],
  ): Promise<void> {
    const items: VerifyItem[] = [];
    const positions: number[] = [];
    for (let i = 0; i < ops.length; i++) {
      if (verifiedKeys[i] !== undefined) continue;
      const op = ops[i]!;
      const type = this.registry.get(op.optype, op.subtype)!;
      const key = type.signerKey?.(op.body) ?? this.root.account(op.signer)?.publicKey ?? null;
      if (key === null) continue;
      if (this.sigCache.has(op.digestHex, key)) {
        verifiedKeys[i] = key;
        continue;
      }
      items.push({ signature: op.signature, hash: this.signingHashOf(op), publicKey: key });
      positions.push(i);
    }
    if (items.length === 0) return;
    const results = await this.verifier.verify(items);
    for (let j = 0; j < items.length; j++) {
      const i = positions[j]!;
      if (!results[j]) {
        throw invalidBlock('BAD_OPERATION_SIGNATURE', `operation ${i} has an invalid signature`);
      }
      verifiedKeys[i] = items[j]!.publicKey;
    }
  }

  /** Puts a block's state changes into `batch` and updates `checksum` accordingly. */
  private writeChanges(batch: ChainBatch, changes: BlockChanges, checksum: StateChecksum): void {
    const store = this.store!;
    for (const a of changes.accounts) {
      const key = heightKey(a.number);
      batch.put(key, a.afterBytes, { sublevel: store.accounts });
      checksum.replace(ENTRY_ACCOUNT, key, a.before, a.afterBytes);
    }
    for (const s of changes.spaces) {
      const key = spaceKey(s.space, s.key);
      if (s.afterBytes === undefined) batch.del(key, { sublevel: store.spaces });
      else batch.put(key, s.afterBytes, { sublevel: store.spaces });
      checksum.replace(ENTRY_SPACE, spaceChecksumKey(key), s.before, s.afterBytes);
    }
    if (changes.producers !== undefined) {
      const after = encodeProducerList(changes.producers.after);
      batch.put(META_PRODUCERS, after, { sublevel: store.meta });
      checksum.replace(
        ENTRY_PRODUCERS,
        PRODUCERS_KEY,
        encodeProducerList(changes.producers.before),
        after,
      );
    }
  }

  /**
   * One atomic, synced batch: block, hash and operation indexes, state changes, undo data, journal
   * deletions, head. Memory (state, mempool, head) changes only after it is on disk.
   */
  private async commitBlock(executed: ExecutedBlock, origin: BlockOrigin): Promise<BlockInfo> {
    const store = this.requireStore();
    const { header, ops } = executed;
    const height = header.height;
    // Weighed under the producer set in force before the block (the layer is not merged yet).
    const slot = { height, parentProducer: await this.producerAt(height - 1) };
    const weight = this.headWeight + blockWeight(this.root.producers(), slot, header.producer);
    const batch = store.batch();
    batch.put(META_WEIGHT, encodeWeight(weight), { sublevel: store.meta });
    batch.put(heightKey(height), executed.bytes, { sublevel: store.blocks });
    batch.put(executed.hash, heightKey(height), { sublevel: store.hashes });
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      batch.put(identityOf(op), opLocation(height, i), { sublevel: store.ops });
    }
    batch.put(heightKey(height), encodeUndo(executed.changes), { sublevel: store.undo });
    if (height - this.maxRollback >= 1) {
      batch.del(heightKey(height - this.maxRollback), { sublevel: store.undo });
    }
    const checksum = this.checksum.copy();
    this.writeChanges(batch, executed.changes, checksum);
    const included: PendingEntry[] = [];
    const released = new Map<JournalRecord, number>();
    for (const op of ops) {
      const entry = this.mempool.entries.get(op.digestHex);
      if (entry === undefined) continue;
      included.push(entry);
      if (entry.journal !== undefined) {
        released.set(entry.journal, (released.get(entry.journal) ?? 0) + 1);
      }
    }
    const afterRelease = this.journal!.releaseIn(batch, released);
    const head: HeadState = {
      height,
      hash: executed.hash,
      timestamp: header.timestamp,
      stateRoot: header.stateRoot,
    };
    batch.put(META_HEAD, encodeHead(head), { sublevel: store.meta });
    batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
    const written = store.commit(batch);
    // Blocks queued behind this one are being checked: help rather than wait for the disk.
    await (origin === 'imported' && this.importsWaiting > 1
      ? this.verifier.helpWhile(written)
      : written);

    afterRelease();
    executed.layer.mergeIntoParent();
    this.checksum = checksum;
    this.headState = head;
    this.revision++;
    this.headWeight = weight;
    this.recentProducers.set(height, header.producer);
    this.recentProducers.delete(height - RECENT_PRODUCERS_KEPT);
    for (const entry of included) this.mempool.remove(entry.key);
    this.rebuildPending(this.mempool.drain(this.root));
    const loaded: LoadedBlock = {
      block: {
        header,
        headerBytes: executed.headerBytes,
        signature: executed.signature,
        hash: executed.hash,
        operations: ops.map((op) => op.bytes),
        bytes: executed.bytes,
      },
      ops,
      fees: executed.fees,
      zeroFee: executed.zeroFee,
    };
    // A block with others queued behind it is part of a sync: keeping its decoded operations or
    // their signature checks would only keep them alive past the collector's young generation,
    // blocks after blocks. A block near the tip is kept, and its checks too: a reorganisation
    // returning its operations to the mempool does not verify them again.
    if (origin !== 'imported' || this.importsWaiting <= 1) {
      this.cacheBlock(height, loaded);
      executed.verifiedKeys?.forEach((key, i) => {
        if (key !== undefined) this.sigCache.add(ops[i]!.digestHex, key);
      });
    }
    const info = this.blockInfoOf(loaded);
    for (const listener of this.blockListeners) {
      try {
        listener(info, origin);
      } catch {
        // Listeners must not undo a committed block.
      }
    }
    return info;
  }

  /**
   * Re-admits operations (in order) on the current committed state; the invalid ones are dropped
   * and their journal entries removed.
   */
  private rebuildPending(entries: readonly PendingEntry[]): void {
    const env = this.pendingEnv();
    const stale: JournalRecord[] = [];
    for (const entry of entries) {
      try {
        if (this.mempool.entries.has(entry.key)) continue;
        const applied = applyOperation(
          this.mempool.layer,
          env,
          entry.op,
          entry.type,
          this.checkSignature,
        );
        entry.signer = applied.signer;
        entry.publicKey = applied.publicKey;
        this.mempool.insert(entry);
      } catch {
        if (entry.journal !== undefined) stale.push(entry.journal);
      }
    }
    if (stale.length > 0) void this.journal?.release(stale).catch(() => undefined);
  }

  async rollback(toHeight: number): Promise<void> {
    this.requireStore();
    return this.tasks.run(async () => {
      this.notifyReturned(await this.rollbackTo(toHeight));
    });
  }

  /**
   * Undoes the blocks above `toHeight` in one batch (run inside a task); their operations go back to
   * the mempool, and are returned.
   */
  private async rollbackTo(toHeight: number): Promise<Operation[]> {
    const store = this.requireStore();
    const head = this.headState;
    if (!Number.isInteger(toHeight) || toHeight > head.height || toHeight < 0) {
      throw invalidBlock('BAD_ROLLBACK', `cannot roll back to block ${String(toHeight)}`);
    }
    if (toHeight === head.height) return [];
    if (head.height - toHeight > this.maxRollback) {
      throw invalidBlock(
        'ROLLBACK_TOO_DEEP',
        `cannot roll back more than ${this.maxRollback} blocks (asked ${head.height - toHeight})`,
      );
    }
    const batch = store.batch();
    const checksum = this.checksum.copy();
    const undos = [];
    const returned: Operation[][] = [];
    let removedWeight = 0;
    let producersAfter: readonly number[] = this.root.producers();
    for (let h = head.height; h > toHeight; h--) {
      const loaded = await this.loadBlock(h);
      const undoBytes = await store.read(store.undo, heightKey(h));
      if (undoBytes === undefined) {
        throw new StoreError(
          ErrorCode.INVALID_DATA,
          'CORRUPT_DATADIR',
          `undo data of block ${h} is missing`,
        );
      }
      const undo = decodeUndo(undoBytes);
      undos.push(undo);
      const producersBefore = undo.producers ?? producersAfter;
      const slot = { height: h, parentProducer: await this.producerAt(h - 1) };
      removedWeight += blockWeight(producersBefore, slot, loaded.block.header.producer);
      producersAfter = producersBefore;
      returned.unshift(loaded.ops);
      batch.del(heightKey(h), { sublevel: store.blocks });
      batch.del(loaded.block.hash, { sublevel: store.hashes });
      batch.del(heightKey(h), { sublevel: store.undo });
      for (const op of loaded.ops) {
        batch.del(identityOf(op), { sublevel: store.ops });
      }
    }
    // Undo newest first, tracking what each entry currently holds for the checksum.
    const accountNow = new Map<number, Uint8Array | undefined>();
    const spaceNow = new Map<string, Uint8Array | undefined>();
    let producersNow: number[] | undefined;
    for (const undo of undos) {
      for (const a of undo.accounts) accountNow.set(a.number, a.before);
      for (const s of undo.spaces) spaceNow.set(spaceKey(s.space, s.key), s.before);
      if (undo.producers !== undefined) producersNow = undo.producers;
    }
    for (const [number, before] of accountNow) {
      const current = this.root.account(number);
      checksum.replace(
        ENTRY_ACCOUNT,
        heightKey(number),
        current === undefined ? undefined : encodeAccount(current),
        before,
      );
      if (before === undefined) batch.del(heightKey(number), { sublevel: store.accounts });
      else batch.put(heightKey(number), before, { sublevel: store.accounts });
    }
    for (const [key, before] of spaceNow) {
      const split = key.indexOf('\u0000');
      const space = this.registry.space(key.slice(0, split))!;
      const current = this.root.spaceGet(space.name, key.slice(split + 1));
      checksum.replace(
        ENTRY_SPACE,
        spaceChecksumKey(key),
        current === undefined ? undefined : space.encode(current),
        before,
      );
      if (before === undefined) batch.del(key, { sublevel: store.spaces });
      else batch.put(key, before, { sublevel: store.spaces });
    }
    if (producersNow !== undefined) {
      const after = encodeProducerList(producersNow);
      checksum.replace(
        ENTRY_PRODUCERS,
        PRODUCERS_KEY,
        encodeProducerList(this.root.producers()),
        after,
      );
      batch.put(META_PRODUCERS, after, { sublevel: store.meta });
    }
    const target = await this.loadBlock(toHeight);
    const newHead: HeadState = {
      height: toHeight,
      hash: target.block.hash,
      timestamp: target.block.header.timestamp,
      stateRoot: target.block.header.stateRoot,
    };
    const newWeight = this.headWeight - removedWeight;
    batch.put(META_HEAD, encodeHead(newHead), { sublevel: store.meta });
    batch.put(META_WEIGHT, encodeWeight(newWeight), { sublevel: store.meta });
    batch.put(META_STATE_CHECKSUM, checksum.toBytes(), { sublevel: store.meta });
    // The rolled-back operations go back to the mempool; journal them so a crash keeps them.
    const returnedOps = returned.flat();
    const record =
      returnedOps.length > 0
        ? this.journal!.writeIn(
            batch,
            returnedOps.map((op) => op.bytes),
          )
        : undefined;
    const returnedEntries: PendingEntry[] = returnedOps.map((op) => ({
      op,
      type: this.registry.get(op.optype, op.subtype)!,
      key: op.digestHex,
      identity: identityOf(op),
      arrival: nowSeconds(),
      signer: op.signer,
      publicKey: new Uint8Array(0),
      journal: record,
    }));
    await store.commit(batch);

    // Memory follows the disk.
    for (const [number, before] of accountNow) {
      const current = this.root.accounts.get(number);
      if (before === undefined) {
        if (current !== undefined) this.root.numbers.delete(hashKey(current.hash160));
        this.root.accounts.delete(number);
        this.addressCache.delete(number);
      } else {
        this.root.accounts.set(number, decodeAccount(number, before));
      }
    }
    this.root.nextNumber = this.root.accounts.size;
    for (const [key, before] of spaceNow) {
      const split = key.indexOf('\u0000');
      const name = key.slice(0, split);
      const space = this.registry.space(name)!;
      const entryKey = key.slice(split + 1);
      const entries = this.root.spaceEntries.get(name);
      if (before === undefined) entries?.delete(entryKey);
      else this.root.spaceSet(name, entryKey, space.decode(before));
    }
    if (producersNow !== undefined) this.root.setProducers(producersNow);
    for (let h = head.height; h > toHeight; h--) this.blockCache.delete(h);
    this.checksum = checksum;
    this.headState = newHead;
    this.revision++;
    this.headWeight = newWeight;
    for (let h = head.height; h > toHeight; h--) this.recentProducers.delete(h);
    const existing = this.mempool.drain(this.root);
    this.rebuildPending([...returnedEntries, ...existing]);
    return returnedOps;
  }

  onBlock(listener: (info: BlockInfo, origin: BlockOrigin) => void): () => void {
    this.blockListeners.add(listener);
    return () => this.blockListeners.delete(listener);
  }

  onPending(listener: (bytes: Uint8Array, origin: PendingOrigin) => void): () => void {
    this.pendingListeners.add(listener);
    return () => this.pendingListeners.delete(listener);
  }
}
