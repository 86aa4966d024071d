import { type Account, decodeAccount } from './account';
import { RecentMap } from './recent-map';
import { DELETED, numberKey, StateLayer, type StateView } from './state-layer';

/**
 * Where the committed state is read from when it is not in memory: the chain database. The sync
 * reads serve a miss during an apply (which must stay synchronous); the batched ones load the
 * entries a block or a submission will touch ahead of it, on LevelDB's threads.
 */
export interface StateStore {
  readAccount(number: number): Uint8Array | undefined;
  readNumber(hash160: Uint8Array): number | undefined;
  /** `key` is the space entry's database key (spaceKey). */
  readSpace(key: string): Uint8Array | undefined;
  readAccounts(numbers: readonly number[]): Promise<(Uint8Array | undefined)[]>;
  readNumbers(hashes: readonly Uint8Array[]): Promise<(number | undefined)[]>;
  readSpaces(keys: readonly string[]): Promise<(Uint8Array | undefined)[]>;
}

/** Decodes a stored space value (the registry's space of that name). */
type SpaceDecoder = (space: string, bytes: Uint8Array) => unknown;

/** The entries a block or a submission is expected to read, to load ahead. */
export interface StateKeys {
  accounts: number[];
  hashes: Uint8Array[];
  /** Pairs of space name and entry key. */
  spaces: Array<[string, string]>;
  /**
   * Addresses paid native coins (ApplyContext.coinRecipient): loaded as `hashes`, with what the
   * registry's address reservations read of them (withReservations, chain/state/state-access.ts).
   */
  coinRecipients: Uint8Array[];
}

export function emptyStateKeys(): StateKeys {
  return { accounts: [], hashes: [], spaces: [], coinRecipients: [] };
}

/** Marks, in a cache, an entry known not to exist on disk. */
const ABSENT: unique symbol = Symbol('absent');
type Cached<V> = V | typeof ABSENT;

/** Key of a space entry in the database and in the caches. */
export function spaceKey(space: string, key: string): string {
  return `${space}\u0000${key}`;
}

/**
 * Approximate heap bytes of one cached entry (object, map slot, key), measured with
 * `--expose-gc` on 100,000 entries of each kind (docs/performance.md, "State cache"); they turn
 * `--state-cache-mb` into entry counts.
 */
const CACHED_ACCOUNT_BYTES = 540;
const CACHED_NUMBER_BYTES = 80;
const CACHED_SPACE_BYTES = 360;

/** How the cache budget is shared: accounts are read most. */
const ACCOUNT_SHARE = 0.55;
const NUMBER_SHARE = 0.25;
const SPACE_SHARE = 0.2;

/** Entries changed by a commit whose write is still under way: read before the caches and disk. */
interface Unwritten {
  accounts: Map<number, Account>;
  numbers: Map<string, number>;
  /** Values, or ABSENT for an entry the commit deleted. */
  spaces: Map<string, unknown>;
}

/** The keys changed while a load was reading: its reads of them are older than memory. */
interface ChangeLog {
  accounts: Set<number>;
  numbers: Set<string>;
  spaces: Set<string>;
  /** A rollback happened: every read of the load is suspect. */
  all: boolean;
}

interface StateCacheStats {
  accounts: number;
  numbers: number;
  spaces: number;
  hits: number;
  misses: number;
  budgetBytes: number;
}

/**
 * The committed state: the state the head block left, on disk in the chain database, read through
 * bounded caches of decoded entries. Nothing per account is held beyond the caches, so memory does
 * not grow with the state. A read that misses the caches reads the database synchronously (an
 * apply never waits); `load` fetches the entries a block or submission will touch beforehand, in
 * one batch, so that the apply finds them in memory. Values returned are shared: never mutated.
 */
export class CommittedState implements StateView {
  nextNumber = 0;
  private producerList: number[] = [];
  private readonly accounts: RecentMap<number, Cached<Account>>;
  private readonly numbers: RecentMap<string, Cached<number>>;
  private readonly spaces: RecentMap<string, unknown>;
  /** Newest last; dropped in order as their writes finish. */
  private unwritten: Unwritten[] = [];
  /** The reads' keys gathered during this event-loop turn, loaded together after it. */
  private turnLoad: { keys: StateKeys; done: Promise<void> } | undefined;
  /** One per load under way: what commits changed meanwhile (load). */
  private readonly loads = new Set<ChangeLog>();
  readonly budgetBytes: number;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly store: StateStore | undefined,
    private readonly decodeSpace: SpaceDecoder,
    cacheMb: number,
  ) {
    this.budgetBytes = Math.max(1024, Math.floor(cacheMb * 1024 * 1024));
    this.accounts = new RecentMap((this.budgetBytes * ACCOUNT_SHARE) / CACHED_ACCOUNT_BYTES);
    this.numbers = new RecentMap((this.budgetBytes * NUMBER_SHARE) / CACHED_NUMBER_BYTES);
    this.spaces = new RecentMap((this.budgetBytes * SPACE_SHARE) / CACHED_SPACE_BYTES);
  }

  child(): StateLayer {
    return new StateLayer(this);
  }

  account(number: number): Account | undefined {
    const known = this.inMemory(ACCOUNTS, this.accounts, number);
    if (known !== undefined) return known === ABSENT ? undefined : known;
    if (number >= this.nextNumber || number < 0 || !Number.isInteger(number)) return undefined;
    const bytes = this.store?.readAccount(number);
    const account = bytes === undefined ? undefined : decodeAccount(number, bytes);
    this.accounts.set(number, account ?? ABSENT);
    return account;
  }

  numberOf(hash160: Uint8Array): number | undefined {
    const key = numberKey(hash160);
    const known = this.inMemory(NUMBERS, this.numbers, key);
    if (known !== undefined) return known === ABSENT ? undefined : known;
    const number = this.store?.readNumber(hash160);
    this.numbers.set(key, number ?? ABSENT);
    return number;
  }

  spaceGet(space: string, key: string): unknown {
    const full = spaceKey(space, key);
    const known = this.inMemory(SPACES, this.spaces, full);
    if (known !== undefined) return known === ABSENT ? undefined : known;
    const bytes = this.store?.readSpace(full);
    const value = bytes === undefined ? undefined : this.decodeSpace(space, bytes);
    this.spaces.set(full, value ?? ABSENT);
    return value;
  }

  producers(): readonly number[] {
    return this.producerList;
  }

  /** At open: what the database holds beside the entries (read once, never per account). */
  reset(nextNumber: number, producers: number[]): void {
    this.nextNumber = nextNumber;
    this.producerList = producers;
    for (const log of this.loads) log.all = true;
  }

  /**
   * Takes a block's layer (a child of this state) as committed. `written` is the block's write
   * when it is still under way (a block written behind): its entries are then held, never
   * evicted, until the write finishes, so that a read never finds the disk behind memory.
   */
  commit(layer: StateLayer, written?: Promise<void>): void {
    for (const log of this.loads) {
      for (const number of layer.accounts.keys()) log.accounts.add(number);
      for (const key of layer.numbers.keys()) log.numbers.add(key);
      for (const [space, entries] of layer.spaceEntries) {
        for (const key of entries.keys()) log.spaces.add(spaceKey(space, key));
      }
    }
    const unwritten: Unwritten | undefined =
      written === undefined
        ? undefined
        : { accounts: new Map(), numbers: new Map(), spaces: new Map() };
    for (const [number, account] of layer.accounts) {
      this.accounts.set(number, account);
      unwritten?.accounts.set(number, account);
    }
    for (const [key, number] of layer.numbers) {
      this.numbers.set(key, number);
      unwritten?.numbers.set(key, number);
    }
    for (const [space, entries] of layer.spaceEntries) {
      for (const [key, value] of entries) {
        const stored = value === DELETED ? ABSENT : value;
        this.spaces.set(spaceKey(space, key), stored);
        unwritten?.spaces.set(spaceKey(space, key), stored);
      }
    }
    this.nextNumber = layer.nextNumber;
    if (layer.producerList !== undefined) this.producerList = layer.producerList;
    if (unwritten !== undefined && written !== undefined) {
      this.unwritten.push(unwritten);
      const drop = () => {
        this.unwritten = this.unwritten.filter((u) => u !== unwritten);
      };
      written.then(drop, drop);
    }
  }

  /**
   * After a rollback reached the disk: the entries it restored are forgotten (read again from
   * disk when next needed), and the accounts it removed no longer count.
   */
  rolledBack(
    accounts: Iterable<number>,
    removedHashes: Iterable<Uint8Array>,
    spaces: Iterable<string>,
    nextNumber: number,
    producers: number[] | undefined,
  ): void {
    for (const log of this.loads) log.all = true;
    // The rollback's write came after every write before it (the store's queue): none is unwritten.
    this.unwritten = [];
    for (const number of accounts) this.accounts.delete(number);
    for (const hash of removedHashes) this.numbers.delete(numberKey(hash));
    for (const key of spaces) this.spaces.delete(key);
    this.nextNumber = nextNumber;
    if (producers !== undefined) this.producerList = producers;
  }

  /**
   * Loads into the caches the entries of `keys` that are not there, in batched reads: an address
   * first, then the account it names. Reads that a commit overtook are not cached (the commit's
   * values are newer); a later read finds them again.
   */
  async load(keys: StateKeys): Promise<void> {
    const store = this.store;
    if (store === undefined) return;
    const log: ChangeLog = {
      accounts: new Set(),
      numbers: new Set(),
      spaces: new Set(),
      all: false,
    };
    this.loads.add(log);
    try {
      const accounts = new Set(keys.accounts);
      const hashes = new Map<string, Uint8Array>();
      for (const hash of keys.hashes.concat(keys.coinRecipients)) {
        const key = numberKey(hash);
        const known = this.inMemory(NUMBERS, this.numbers, key);
        if (known === undefined) hashes.set(key, hash);
        else if (typeof known === 'number') accounts.add(known);
      }
      if (hashes.size > 0) {
        const numbers = await store.readNumbers([...hashes.values()]);
        if (log.all) return;
        const hashKeys = [...hashes.keys()];
        for (let i = 0; i < hashKeys.length; i++) {
          const key = hashKeys[i]!;
          const number = numbers[i];
          if (!log.numbers.has(key)) this.numbers.set(key, number ?? ABSENT);
          if (number !== undefined) accounts.add(number);
        }
      }
      const missingAccounts = [...accounts].filter(
        (n) =>
          n >= 0 && n < this.nextNumber && this.inMemory(ACCOUNTS, this.accounts, n) === undefined,
      );
      const missingSpaces = [
        ...new Set(keys.spaces.map(([space, key]) => spaceKey(space, key))),
      ].filter((key) => this.inMemory(SPACES, this.spaces, key) === undefined);
      const [accountBytes, spaceBytes] = await Promise.all([
        missingAccounts.length > 0 ? store.readAccounts(missingAccounts) : [],
        missingSpaces.length > 0 ? store.readSpaces(missingSpaces) : [],
      ]);
      if (log.all) return;
      for (let i = 0; i < missingAccounts.length; i++) {
        const number = missingAccounts[i]!;
        const bytes = accountBytes[i];
        if (log.accounts.has(number)) continue;
        this.accounts.set(number, bytes === undefined ? ABSENT : decodeAccount(number, bytes));
      }
      for (let i = 0; i < missingSpaces.length; i++) {
        const key = missingSpaces[i]!;
        const bytes = spaceBytes[i];
        if (log.spaces.has(key)) continue;
        const space = key.slice(0, key.indexOf('\u0000'));
        this.spaces.set(key, bytes === undefined ? ABSENT : this.decodeSpace(space, bytes));
      }
    } finally {
      this.loads.delete(log);
    }
  }

  /** Drops the less recently used half of each cache (the heap is short: heap-guard.ts). */
  shrink(): void {
    this.accounts.shrink();
    this.numbers.shrink();
    this.spaces.shrink();
  }

  /**
   * Loads the entries of `keys` that are not in memory; undefined when all are (the caller then
   * reads at once, without a turn of the event loop).
   */
  loadMissing(keys: StateKeys): Promise<void> | undefined {
    if (this.store === undefined) return undefined;
    const missing =
      keys.accounts.some(
        (n) =>
          n >= 0 && n < this.nextNumber && this.inMemory(ACCOUNTS, this.accounts, n) === undefined,
      ) ||
      keys.spaces.some(
        ([space, key]) => this.inMemory(SPACES, this.spaces, spaceKey(space, key)) === undefined,
      ) ||
      keys.hashes.some((hash) => {
        const number = this.inMemory(NUMBERS, this.numbers, numberKey(hash));
        return (
          number === undefined ||
          (number !== ABSENT && this.inMemory(ACCOUNTS, this.accounts, number) === undefined)
        );
      });
    return missing ? this.loadWithOthers(keys) : undefined;
  }

  /**
   * Loads `keys` together with the other reads' keys of this event-loop turn: many concurrent
   * reads (RPC calls) cost one batched read of the database, not one each. Never rejects: what it
   * could not load is read when needed.
   */
  private loadWithOthers(keys: StateKeys): Promise<void> {
    let turn = this.turnLoad;
    if (turn === undefined) {
      const gathered: StateKeys = emptyStateKeys();
      const started = new Promise<void>((resolve) => {
        setImmediate(() => {
          this.turnLoad = undefined;
          this.load(gathered).then(resolve, () => resolve());
        });
      });
      turn = { keys: gathered, done: started };
      this.turnLoad = turn;
    }
    turn.keys.accounts.push(...keys.accounts);
    turn.keys.hashes.push(...keys.hashes);
    turn.keys.spaces.push(...keys.spaces);
    turn.keys.coinRecipients.push(...keys.coinRecipients);
    return turn.done;
  }

  stats(): StateCacheStats {
    return {
      accounts: this.accounts.size,
      numbers: this.numbers.size,
      spaces: this.spaces.size,
      hits: this.hits,
      misses: this.misses,
      budgetBytes: this.budgetBytes,
    };
  }

  /**
   * An entry as memory holds it (ABSENT: known not to exist), undefined when it must be read: a
   * commit still being written first (newest first), then the cache. Counts the hits and misses.
   */
  private inMemory<K, V>(
    part: (u: Unwritten) => Map<K, V>,
    cache: RecentMap<K, Cached<V>>,
    key: K,
  ): Cached<V> | undefined {
    for (let i = this.unwritten.length - 1; i >= 0; i--) {
      const found = part(this.unwritten[i]!).get(key);
      if (found !== undefined) return found;
    }
    const cached = cache.get(key);
    if (cached === undefined) this.misses++;
    else this.hits++;
    return cached;
  }
}

const ACCOUNTS = (u: Unwritten) => u.accounts;
const NUMBERS = (u: Unwritten) => u.numbers;
const SPACES = (u: Unwritten) => u.spaces;
