import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '@chain/crypto';
import { ClassicLevel } from 'classic-level';
import { plainBytes } from '../codec/byte-reader';
import { StoreError } from '../errors';

type Bytes = Uint8Array;
type RootBatch = ReturnType<ClassicLevel<Bytes, Bytes>['batch']>;

/** A sublevel of the chain database, as a batch operation names it. */
interface Sublevel {
  readonly prefix: string;
}

/**
 * A write batch on the root database that applies sublevel prefixes itself: abstract-level's
 * generic handling of the `sublevel` option (options spread, descendant checks, re-encoding) costs
 * more per put than LevelDB's own put, and a block writes several puts per operation. Keys are
 * bytes (`view` sublevels) or strings (`utf8` sublevels), exactly as the sublevels store them.
 */
export class ChainBatch {
  constructor(private readonly root: RootBatch) {}

  put(key: Bytes | string, value: Bytes, options: { sublevel: Sublevel }): this {
    this.root.put(prefixed(options.sublevel, key), value);
    return this;
  }

  /** A put whose key already starts with its sublevel's prefix (see operationIndexKey). */
  putPrefixed(key: Bytes, value: Bytes): this {
    this.root.put(key, value);
    return this;
  }

  del(key: Bytes | string, options: { sublevel: Sublevel }): this {
    this.root.del(prefixed(options.sublevel, key));
    return this;
  }

  write(options: { sync?: boolean } = {}): Promise<void> {
    return this.root.write(options);
  }
}

const prefixBytes = new WeakMap<Sublevel, Buffer>();

function prefixOf(sublevel: Sublevel): Buffer {
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

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

function writeU32leHex(out: Buffer, at: number, value: number): number {
  for (let i = 0; i < 4; i++) {
    const byte = (value >>> (8 * i)) & 0xff;
    out[at++] = HEX_DIGITS[byte >>> 4]!;
    out[at++] = HEX_DIGITS[byte & 0x0f]!;
  }
  return at;
}

/**
 * An operation's key in the `ops` sublevel (a utf8 sublevel), prefix included: the bytes of its
 * opHashIdentity text (`u32le hex(account) || u32le hex(n_operation) || digest hex`, all ASCII),
 * written straight into the key a block's batch puts, without building the text first (a block
 * writes one per operation). For `ChainBatch.putPrefixed`.
 */
export function operationIndexKey(
  sublevel: Sublevel,
  signer: number,
  nOperation: number,
  digestHex: string,
): Bytes {
  const prefix = prefixOf(sublevel);
  const out = Buffer.allocUnsafe(prefix.length + 16 + digestHex.length);
  prefix.copy(out, 0);
  const at = writeU32leHex(out, writeU32leHex(out, prefix.length, signer), nOperation);
  out.write(digestHex, at, 'latin1');
  return out;
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

/** Key of a state space entry in the `spaces` sublevel. */
export function spaceKey(space: string, key: string): string {
  return `${space}\u0000${key}`;
}

export const META_GENESIS = 'genesis';
export const META_HEAD = 'head';
export const META_PRODUCERS = 'producers';
/** The state checksum (StateChecksum) the head block left. */
export const META_STATE_CHECKSUM = 'state-checksum';
/** Where versions before the CRC checksum kept a SHA-256 one. */
export const META_LEGACY_CHECKSUM = 'checksum';

/**
 * The chain's LevelDB (`<dataDir>/chain`) and its sublevels. Every write goes through one queue so
 * that journal group commits and block batches reach the disk in the order they were made.
 */
export class ChainStore {
  readonly db: ClassicLevel<Bytes, Bytes>;
  readonly meta;
  readonly blocks;
  readonly hashes;
  readonly ops;
  readonly undo;
  readonly accounts;
  readonly spaces;
  readonly journal;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(readonly path: string) {
    this.db = new ClassicLevel<Bytes, Bytes>(path, { keyEncoding: 'view', valueEncoding: 'view' });
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
    this.ops = this.db.sublevel<string, Bytes>('ops', {
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
    this.journal = this.db.sublevel<Bytes, Bytes>('journal', {
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
    const value = await sublevel.get(key);
    return value === undefined ? undefined : plainBytes(value);
  }

  batch(): ChainBatch {
    const batch = new ChainBatch(this.db.batch());
    return crashSwitch === undefined ? batch : withCrashPoint(batch, crashSwitch);
  }

  /** Runs `task` after every write queued before it. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes the batch in queue order, durably (fsync) unless `durable` is false: then it is in the
   * operating system's cache, safe from a crash of the process, and made durable by the next
   * durable write (LevelDB's log keeps the order: a power loss leaves a prefix of the writes).
   */
  commit(batch: ChainBatch, durable = true): Promise<void> {
    return this.enqueue(() => batch.write({ sync: durable }));
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
 * point, counted from process start: every batch written to the chain database (blocks, journal
 * group commits, journal releases, rollbacks, genesis). `<k>` dies just before the batch reaches
 * LevelDB, `<k>:after` just after it is durable, before its writer hears of it. Unset (always, outside
 * those tests) nothing is wrapped. The name is not `CHAIN_*`: the CLI reads those as flags.
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

function withCrashPoint(batch: ChainBatch, crash: CrashSwitch): ChainBatch {
  const write = batch.write.bind(batch);
  const crashed = async (options?: { sync?: boolean }): Promise<void> => {
    const point = ++writePoints;
    if (point === crash.at && !crash.after) process.kill(process.pid, 'SIGKILL');
    await write(options);
    if (point === crash.at && crash.after) process.kill(process.pid, 'SIGKILL');
  };
  batch.write = crashed;
  return batch;
}
