import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '@chain/crypto';
import { ClassicLevel } from 'classic-level';
import { plainBytes } from '../../codec/byte-reader';
import { StoreError } from '../../errors';
import type { StateStore } from '../../state/committed-state';
import { ReadBatcher } from './read-batcher';

type Bytes = Uint8Array;
type RootBatch = ReturnType<ClassicLevel<Bytes, Bytes>['batch']>;
export type DatabaseSnapshot = ReturnType<ClassicLevel<Bytes, Bytes>['snapshot']>;

/** A sublevel of the chain database, as a batch operation names it. */
interface Sublevel {
  readonly prefix: string;
}

/**
 * A write batch on the root database that applies sublevel prefixes itself: abstract-level's
 * generic handling of the `sublevel` option (options spread, descendant checks, re-encoding) costs
 * more per put than LevelDB's own put, and a block writes several puts per operation. Keys are
 * bytes (`view` sublevels) or strings (`utf8` sublevels), exactly as the sublevels store them.
 * A batch fills LevelDB's own batch as the puts come; a joining batch (ChainStore.batch) keeps them
 * instead, to be copied into the write of the batch it joins (ChainStore.commit).
 */
export class ChainBatch {
  /** LevelDB's batch this one fills; undefined for a joining batch. */
  readonly root: RootBatch | undefined;
  private readonly keys: Bytes[] = [];
  /** The value of each kept key; undefined deletes it. */
  private readonly values: (Bytes | undefined)[] = [];

  constructor(
    private readonly store: ChainStore,
    joining: boolean,
  ) {
    this.root = joining ? undefined : store.db.batch();
  }

  put(key: Bytes | string, value: Bytes, options: { sublevel: Sublevel }): this {
    return this.putPrefixed(prefixed(options.sublevel, key), value);
  }

  /** A put whose key already starts with its sublevel's prefix (see operationIndexKey). */
  putPrefixed(key: Bytes, value: Bytes): this {
    if (this.root !== undefined) this.root.put(key, value);
    else {
      this.keys.push(key);
      this.values.push(value);
    }
    return this;
  }

  del(key: Bytes | string, options: { sublevel: Sublevel }): this {
    const prefixedKey = prefixed(options.sublevel, key);
    if (this.root !== undefined) this.root.del(prefixedKey);
    else {
      this.keys.push(prefixedKey);
      this.values.push(undefined);
    }
    return this;
  }

  /** Writes this batch alone, now (ordering is the caller's: see ChainStore.enqueue). */
  write(options: { sync?: boolean } = {}): Promise<void> {
    return this.store.writeNow([this], options.sync ?? false);
  }

  /** Adds the puts and deletes this batch kept to a LevelDB batch. */
  copyInto(root: RootBatch): void {
    const { keys, values } = this;
    for (let i = 0; i < keys.length; i++) {
      const value = values[i];
      if (value === undefined) root.del(keys[i]!);
      else root.put(keys[i]!, value);
    }
  }
}

const prefixBytes = new WeakMap<Sublevel, Buffer>();

/** The bytes a sublevel's keys start with in the database. */
export function prefixOf(sublevel: Sublevel): Buffer {
  let prefix = prefixBytes.get(sublevel);
  if (prefix === undefined) {
    prefix = Buffer.from(sublevel.prefix, 'utf8');
    prefixBytes.set(sublevel, prefix);
  }
  return prefix;
}

function prefixed(sublevel: Sublevel, key: Bytes | string): Bytes {
  const prefix = prefixOf(sublevel);
  const keyLength = typeof key === 'string' ? Buffer.byteLength(key, 'utf8') : key.length;
  const out = Buffer.allocUnsafe(prefix.length + keyLength);
  prefix.copy(out, 0);
  if (typeof key === 'string') out.write(key, prefix.length, 'utf8');
  else out.set(key, prefix.length);
  return out;
}

/** `u32 BE signer || u32 BE n_operation || digest` (20 bytes): an operation's key in `opIndex`. */
const OPERATION_KEY_LENGTH = 4 + 4 + 20;

function writeOperationKey(
  out: Buffer,
  at: number,
  signer: number,
  nOperation: number,
  digestHex: string,
): Buffer {
  const digestAt = out.writeUInt32BE(nOperation, out.writeUInt32BE(signer, at));
  if (out.write(digestHex, digestAt, 'hex') !== OPERATION_KEY_LENGTH - 8) {
    throw new RangeError(`an operation digest is 40 hex characters, got ${digestHex.length}`);
  }
  return out;
}

/**
 * An operation's key in the `opIndex` sublevel: its signer and n_operation big endian, then its
 * digest, so that a signer's operations are in n_operation order and each new one lands after the
 * signer's last. (The layout before, the ophash identity's text, put the low byte of n_operation
 * first and so scattered a signer's operations over the signer's whole range: every compaction of
 * the index rewrote all of it, docs/decisions.md, "Operation index in signer order".)
 */
export function operationKey(signer: number, nOperation: number, digestHex: string): Bytes {
  return writeOperationKey(
    Buffer.allocUnsafe(OPERATION_KEY_LENGTH),
    0,
    signer,
    nOperation,
    digestHex,
  );
}

/** operationKey with the sublevel's prefix, written at once: for `ChainBatch.putPrefixed`. */
export function operationIndexKey(
  sublevel: Sublevel,
  signer: number,
  nOperation: number,
  digestHex: string,
): Bytes {
  const prefix = prefixOf(sublevel);
  const out = Buffer.allocUnsafe(prefix.length + OPERATION_KEY_LENGTH);
  prefix.copy(out, 0);
  return writeOperationKey(out, prefix.length, signer, nOperation, digestHex);
}

/** The key range of a signer's operations of one n_operation, any digest (`opIndex`). */
export function operationKeyRange(signer: number, nOperation: number): { gte: Bytes; lte: Bytes } {
  const gte = Buffer.alloc(OPERATION_KEY_LENGTH);
  gte.writeUInt32BE(nOperation, gte.writeUInt32BE(signer, 0));
  const lte = Buffer.from(gte);
  lte.fill(0xff, 8);
  return { gte, lte };
}

/**
 * The `opIndex` key of an operation named by its ophash identity text (`u32le hex(account) ||
 * u32le hex(n_operation) || digest hex`, @chain/ophash's opHashIdentity).
 */
export function operationKeyOfIdentity(identity: string): Bytes {
  const parts = Buffer.from(identity.slice(0, 16), 'hex');
  return operationKey(parts.readUInt32LE(0), parts.readUInt32LE(4), identity.slice(16));
}

/** Big-endian u32 key, so LevelDB's byte order is numeric order. */
export function heightKey(height: number): Uint8Array {
  const key = new Uint8Array(4);
  key[0] = height >>> 24;
  key[1] = height >>> 16;
  key[2] = height >>> 8;
  key[3] = height;
  return key;
}

export function readHeightKey(key: Uint8Array): number {
  return new DataView(key.buffer, key.byteOffset, 4).getUint32(0, false);
}

export { spaceKey } from '../../state/committed-state';

export const META_GENESIS = 'genesis';
export const META_HEAD = 'head';
export const META_PRODUCERS = 'producers';
/**
 * The first height whose block this data directory holds, when it was restored from a snapshot
 * (u32le); absent when it holds every block from 0. Below it, only headers (`headers`).
 */
export const META_HISTORY_START = 'history-start';
/**
 * The lowest block from which the history index is complete (u32 LE); absent = from block 0. Set
 * when an existing data directory made before the index opens, or after a snapshot (history-fill
 * moves it down as the blocks below arrive).
 */
export const META_INDEX_FROM = 'index-from';
/** Present while a snapshot is written into the data directory: it then refuses to open. */
export const META_RESTORING = 'restoring';
/** A key written only to sync the writes before it (ChainStore.syncWrites); its value means nothing. */
const META_SYNCED = 'synced';
const SYNC_MARK = new Uint8Array(0);

/**
 * How the chain's LevelDB is opened, by the node and by whatever writes a chain database for it (a
 * copy, the benchmarks' fixtures). LevelDB's own table settings: 1 KiB blocks read faster alone but
 * made the node slower at 10M accounts (docs/performance.md, "The miss path").
 *
 * `maxOpenFiles` (LevelDB's default, stated because it bounds the node's memory): each open table
 * file holds its index and filter blocks in malloc's heap, about 90 KB a 2 MB table (measured at
 * 1M grown accounts), so the table cache (990 tables) holds at most about 90 MB, reached near 10M
 * accounts (about 2 GB of tables). Beyond it tables are closed and opened again rather than memory
 * growing; fewer would reopen tables for most reads of a 10M state (docs/decisions.md, "Written
 * LevelDB batches freed at once; the table cache's bound").
 */
export const CHAIN_DB_OPTIONS = {
  keyEncoding: 'view',
  valueEncoding: 'view',
  maxOpenFiles: 1000,
} as const;
/** Batched state reads out at once: one beside the event loop's core, one more to cover its return. */
const STATE_READS_IN_FLIGHT = 2;
/**
 * Batched state reads (loads ahead: random keys of a large state) leave LevelDB's block cache alone:
 * what they read is cached decoded (CommittedState), and in the block cache it would only churn it;
 * a read that skips it took 19% less time. Reads on the spot keep it: a walk through neighbouring
 * entries (a page of token holders) reads one block many times (docs/performance.md, "The miss path").
 */
const STATE_READ_OPTIONS = { fillCache: false } as const;
/**
 * The layout of the data directory: absent before the address index existed, 2 with it while the
 * state root was a hash chain of per-block diffs, STATE_FORMAT_LATTICE since the state root
 * commits to the whole state (an LtHash vector kept in the head record). The block hashes of an
 * older chain are not those of the same chain now, so chain-boot.ts refuses it (DATADIR_TOO_OLD).
 */
export const META_STATE_FORMAT = 'state-format';
export const STATE_FORMAT_LATTICE = 3;
/**
 * The operation index in signer order (`opIndex`, operationIndexKey) instead of the ophash
 * identity's text (`legacyOps`): a data directory of STATE_FORMAT_LATTICE is moved to it at open.
 */
export const STATE_FORMAT_OPERATIONS_BY_SIGNER = 4;
/** The layout this node writes. */
export const STATE_FORMAT_CURRENT = STATE_FORMAT_OPERATIONS_BY_SIGNER;
/** The state checksum (StateChecksum) the head block left. */
export const META_STATE_CHECKSUM = 'state-checksum';

/** Batches committed one after another, written together (ChainStore.commit). */
interface CommitGroup {
  readonly batches: ChainBatch[];
  /** Synced when any of its batches asked for it. */
  durable: boolean;
  written: Promise<void>;
}

/**
 * The chain's LevelDB (`<dataDir>/chain`) and its sublevels. Every write goes through one queue so
 * that journal group commits and block batches reach the disk in the order they were made.
 */
export class ChainStore implements StateStore {
  readonly db: ClassicLevel<Bytes, Bytes>;
  readonly meta;
  readonly blocks;
  readonly hashes;
  /**
   * Where each operation is: `u32 BE signer || u32 BE n_operation || digest` -> `opLocation`
   * (operationIndexKey). Since STATE_FORMAT_OPERATIONS_BY_SIGNER.
   */
  readonly opIndex;
  /**
   * The operation index of a data directory before STATE_FORMAT_OPERATIONS_BY_SIGNER, keyed by the
   * ophash identity's text: read only to move it into `opIndex` (operation-index-move.ts).
   */
  readonly legacyOps;
  readonly undo;
  readonly accounts;
  readonly spaces;
  readonly addresses;
  readonly journal;
  /** Signed headers (`header || signature`) of the blocks below the history start, by height. */
  readonly headers;
  /**
   * What each block executed here paid out (its reward: subsidy and fees), by height: the block
   * hooks' credits, which the block itself does not record (encodeReward).
   */
  readonly rewards;
  /**
   * The history index (chain/history/history-index.ts): `account u32 BE || height u32 BE ||
   * index u16 BE` -> nothing, for every operation touching the account.
   */
  readonly addressHistory;
  /** `token hash160 || height u32 BE || index u16 BE` -> nothing: every operation of a token. */
  readonly tokenHistory;
  /** `account u32 BE || token hash160` -> nothing: the tokens a wallet's operations moved. */
  readonly walletTokens;
  private queue: Promise<unknown> = Promise.resolve();
  /** Block batches waiting for their turn in the queue: later commits join them (commit). */
  private group: CommitGroup | undefined;
  /** The last commit that memory is allowed to be ahead of (commit's `behind`); reads wait for it. */
  private behind: Promise<void> | undefined;
  /** A write since the last synced one was not synced (syncWrites). */
  private unsynced = false;
  /** The first write that failed: nothing is written after it. */
  private failure: StoreError | undefined;
  /** The committed state's batched reads: one database call for the reads of many callers. */
  private readonly reads = new ReadBatcher(async (keys) => {
    const values = await this.db.getMany(keys, STATE_READ_OPTIONS);
    return values.map((v) => (v === undefined ? undefined : plainBytes(v)));
  }, STATE_READS_IN_FLIGHT);
  /** Told of the first failed write. */
  onFailure: ((error: StoreError) => void) | undefined;

  private constructor(readonly path: string) {
    this.db = new ClassicLevel<Bytes, Bytes>(path, CHAIN_DB_OPTIONS);
    this.meta = this.db.sublevel<string, Bytes>('meta', {
      keyEncoding: 'utf8',
      valueEncoding: 'view',
    });
    this.blocks = this.db.sublevel<Bytes, Bytes>('blocks', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.hashes = this.db.sublevel<Bytes, Bytes>('hashes', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.opIndex = this.db.sublevel<Bytes, Bytes>('opn', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.legacyOps = this.db.sublevel<string, Bytes>('ops', {
      keyEncoding: 'utf8',
      valueEncoding: 'view',
    });
    this.undo = this.db.sublevel<Bytes, Bytes>('undo', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.accounts = this.db.sublevel<Bytes, Bytes>('accounts', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.spaces = this.db.sublevel<string, Bytes>('spaces', {
      keyEncoding: 'utf8',
      valueEncoding: 'view',
    });
    this.addresses = this.db.sublevel<Bytes, Bytes>('addresses', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.journal = this.db.sublevel<Bytes, Bytes>('journal', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.headers = this.db.sublevel<Bytes, Bytes>('headers', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.rewards = this.db.sublevel<Bytes, Bytes>('rewards', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.addressHistory = this.db.sublevel<Bytes, Bytes>('ah', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.tokenHistory = this.db.sublevel<Bytes, Bytes>('th', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    this.walletTokens = this.db.sublevel<Bytes, Bytes>('wt', {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
  }

  /** Opens `<dataDir>/chain`; DATADIR_IN_USE when another process (or chain) holds it. */
  static async open(dataDir: string): Promise<ChainStore> {
    await mkdir(dataDir, { recursive: true });
    const store = new ChainStore(join(dataDir, 'chain'));
    try {
      await store.db.open();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED') {
        throw new StoreError(
          ErrorCode.NOT_ALLOWED,
          'DATADIR_IN_USE',
          `data directory ${dataDir} is in use by another chain-node process`,
          { cause: error },
        );
      }
      throw new StoreError(
        ErrorCode.NOT_ALLOWED,
        'DATADIR_UNUSABLE',
        `cannot open the chain database in ${dataDir}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return store;
  }

  /** A value as a plain Uint8Array (LevelDB returns Buffers, whose slice() does not copy). */
  async read<K>(
    sublevel: { get(key: K): Promise<Uint8Array | undefined> },
    key: K,
  ): Promise<Uint8Array | undefined> {
    // Memory may be ahead of the disk by the commits written behind: a reader that learnt of
    // a block from memory finds it on disk.
    if (this.behind !== undefined) await this.behind;
    const value = await sublevel.get(key);
    return value === undefined ? undefined : plainBytes(value);
  }

  /**
   * The values of the keys from `gte` to `lte` in key order, in one pass of an iterator (a few
   * thread-pool round trips where one read a key took one each), stopping before the value that
   * would take them past `maxBytes` (the first always comes).
   */
  async readRange(
    sublevel: {
      values(options: { gte: Uint8Array; lte: Uint8Array }): AsyncIterable<Uint8Array>;
    },
    gte: Uint8Array,
    lte: Uint8Array,
    maxBytes: number,
  ): Promise<Uint8Array[]> {
    if (this.behind !== undefined) await this.behind;
    const out: Uint8Array[] = [];
    let bytes = 0;
    for await (const value of sublevel.values({ gte, lte })) {
      if (out.length > 0 && bytes + value.length > maxBytes) break;
      out.push(plainBytes(value));
      bytes += value.length;
    }
    return out;
  }

  // The committed state's reads (StateStore), straight on the root database with the sublevel's
  // prefix: a miss during an apply reads synchronously, a load ahead reads in one batch. They see
  // what was written; memory holds what is being written (CommittedState's unwritten entries).

  readAccount(number: number): Uint8Array | undefined {
    return this.getNow(prefixed(this.accounts, heightKey(number)));
  }

  readNumber(hash160: Uint8Array): number | undefined {
    const value = this.getNow(prefixed(this.addresses, hash160));
    return value === undefined ? undefined : readHeightKey(value);
  }

  readSpace(key: string): Uint8Array | undefined {
    return this.getNow(prefixed(this.spaces, key));
  }

  async readAccounts(numbers: readonly number[]): Promise<(Uint8Array | undefined)[]> {
    return this.getMany(numbers.map((n) => prefixed(this.accounts, heightKey(n))));
  }

  async readNumbers(hashes: readonly Uint8Array[]): Promise<(number | undefined)[]> {
    const values = await this.getMany(hashes.map((h) => prefixed(this.addresses, h)));
    return values.map((v) => (v === undefined ? undefined : readHeightKey(v)));
  }

  async readSpaces(keys: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    return this.getMany(keys.map((k) => prefixed(this.spaces, k)));
  }

  private getNow(key: Bytes): Uint8Array | undefined {
    const value = this.db.getSync(key);
    return value === undefined ? undefined : plainBytes(value);
  }

  private getMany(keys: Bytes[]): Promise<(Uint8Array | undefined)[]> {
    return this.reads.read(keys);
  }

  /**
   * A batch to fill and write. A `joining` one keeps its puts until written, so that it can join
   * the write of a batch committed before it (a block written behind); the others fill LevelDB's
   * batch at once, holding no copy of their puts in the heap meanwhile.
   */
  batch(joining = false): ChainBatch {
    return new ChainBatch(this, joining);
  }

  /** Runs `task` after every write queued before it; none runs after a failed write. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    // A batch queued after this task must not join a group queued before it.
    this.group = undefined;
    const guarded = () => {
      if (this.failure !== undefined) throw this.failure;
      return task();
    };
    const run = this.queue.then(guarded, guarded);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes the batch in queue order, durably (fsync) unless `durable` is false: then it is in the
   * operating system's cache, safe from a crash of the process, and made durable by the next
   * durable write (LevelDB's log keeps the order: a power loss leaves a prefix of the writes).
   * Batches committed while the writes before them are under way join into one LevelDB write
   * (a group commit: a sync writes its blocks a few at a time). `behind` marks a commit that
   * memory will not wait for: reads wait for it instead (read).
   */
  commit(batch: ChainBatch, durable = true, behind = false): Promise<void> {
    let group = this.group;
    // Only a joining batch joins: the first of a group may be any (its write carries the others).
    if (group === undefined || batch.root !== undefined) {
      const opened: CommitGroup = { batches: [], durable: false, written: Promise.resolve() };
      opened.written = this.enqueue(() => {
        if (this.group === opened) this.group = undefined;
        return this.writeNow(opened.batches, opened.durable);
      });
      // enqueue closed the previous group; this one stays open until its turn comes.
      this.group = group = opened;
    }
    group.batches.push(batch);
    if (durable) group.durable = true;
    const written = group.written;
    if (behind) {
      this.behind = written;
      written.then(
        () => {
          if (this.behind === written) this.behind = undefined;
        },
        () => undefined,
      );
    }
    return written;
  }

  /** Writes `batches` in one LevelDB write; the first failure stops every later write. */
  async writeNow(batches: readonly ChainBatch[], sync: boolean): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const first = batches[0]!;
    const root = first.root ?? this.db.batch();
    for (const batch of batches) {
      if (batch.root !== undefined && batch !== first)
        throw new Error('a filled batch cannot join');
      batch.copyInto(root);
    }
    const point = crashSwitch === undefined ? 0 : ++writePoints;
    if (point === crashSwitch?.at && !crashSwitch.after) process.kill(process.pid, 'SIGKILL');
    try {
      await root.write({ sync });
    } catch (error) {
      if (this.failure !== undefined) throw this.failure;
      this.failure = new StoreError(
        ErrorCode.NOT_ALLOWED,
        'STORE_FAILED',
        `a write to the chain database failed (${(error as Error).message}): restart the node; it resumes from the last block on disk`,
        { cause: error },
      );
      this.onFailure?.(this.failure);
      throw this.failure;
    }
    this.unsynced = !sync;
    if (point === crashSwitch?.at && crashSwitch.after) process.kill(process.pid, 'SIGKILL');
  }

  /**
   * A consistent read-only view of the database as it is after the last commit (one memory took:
   * the writes behind it included), for reads over a long time (a snapshot served to peers); close
   * it when done (LevelDB keeps what it sees until then).
   */
  async snapshot(): Promise<DatabaseSnapshot> {
    if (this.behind !== undefined) await this.behind;
    return this.db.snapshot();
  }

  /** Makes every write so far durable, if one was not synced (one synced write of a marker). */
  async syncWrites(): Promise<void> {
    if (!this.unsynced || this.failure !== undefined) return;
    await this.commit(this.batch(true).put(META_SYNCED, SYNC_MARK, { sublevel: this.meta }), true);
  }

  /**
   * LevelDB's estimate of the memory it holds (memtables and block cache; not the open tables'
   * index and filter blocks), undefined while the database is not open.
   */
  levelDbMemoryBytes(): number | undefined {
    if (this.db.status !== 'open') return undefined;
    return Number(this.db.getProperty('leveldb.approximate-memory-usage'));
  }

  /** The failure that stopped the writes, if one did. */
  get failed(): StoreError | undefined {
    return this.failure;
  }

  async close(): Promise<void> {
    await this.queue;
    await this.db.close();
  }
}

// ---------------------------------------------------------------- test-only crash switch

/**
 * Crash-consistency tests (in the style of Bitcoin Core's feature_dbcrash) start a node with
 * `LEDGER_TEST_CRASH_AT_WRITE=<k>` to have the process killed by SIGKILL at its k-th storage write
 * point, counted from process start: every write to the chain database (blocks, several in one
 * write when they were committed as a group, journal group commits, journal releases, rollbacks,
 * genesis). `<k>` dies just before the write reaches LevelDB, `<k>:after` just after it is
 * durable, before its writers hear of it. Unset (always, outside those tests) nothing is counted.
 * The name is not `CHAIN_*`: the CLI reads those as flags.
 */
export const CRASH_SWITCH_ENV = 'LEDGER_TEST_CRASH_AT_WRITE';

interface CrashSwitch {
  at: number;
  after: boolean;
}

function readCrashSwitch(value: string | undefined): CrashSwitch | undefined {
  const match = /^([1-9]\d*)(:after)?$/.exec(value ?? '');
  return match === null ? undefined : { at: Number(match[1]), after: match[2] !== undefined };
}

const crashSwitch = readCrashSwitch(process.env[CRASH_SWITCH_ENV]);
let writePoints = 0;
