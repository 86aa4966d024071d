import type { InvalidKeyFile } from './key-directory';
import type { ParsedKeyFile } from './key-file';
import type { UnresolvedKeyFile } from './keystore-api';

/** What the key store asks of its index (key-index.ts), and the records it hands back. */
export interface KeyEntry {
  /**
   * The key's Ethereum-style address, which identifies it before its chain address is known; for
   * a file that does not say, `?` and the file name until the file is first decrypted.
   */
  readonly id: string;
  readonly fileName: string;
  readonly createdAt: bigint;
  readonly file: ParsedKeyFile;
  /** Normalised chain address, null until the key's public key is known. */
  readonly address: string | null;
  /** The file's size and times when it was indexed: a use that finds them changed reads it again. */
  readonly stamp: string;
}

export interface IndexProgress {
  /** Names of the directory looked at so far in this pass. */
  done: number;
  /** Names in the directory (counted before the pass). */
  total: number;
}

export interface SyncCounts {
  /** Keys (wallets or files waiting for their passphrase) newly indexed. */
  added: number;
  /** Keys whose file is gone. */
  removed: number;
}

export type Forget = (id: string) => void;
export type Exclusive = (run: () => Promise<SyncCounts>) => Promise<SyncCounts>;

export interface KeyIndex {
  open(): Promise<{ needsScan: boolean }>;
  close(): Promise<void>;
  walletCount(): number;
  byAddress(address: string): Promise<KeyEntry | undefined>;
  /** Whether a wallet of this (normalised) address is indexed: one read, no key file. */
  holds(address: string): Promise<boolean>;
  /** `holds` of many (normalised) addresses in one read of the index (getMany). */
  holdsMany(addresses: readonly string[]): Promise<boolean[]>;
  /**
   * Whether a wallet of this (normalised) address is indexed, from the name set in memory (no
   * read); undefined until it is loaded (loadNames, a scan). True may be a collision of 53-bit
   * hashes: about 1 in 10^10 for an address not held, at a million wallets (name-set.ts).
   */
  heldInMemory(address: string): boolean | undefined;
  byId(id: string): Promise<KeyEntry | undefined>;
  /** The entry is still what the index says its file holds. */
  isCurrent(entry: KeyEntry): Promise<boolean>;
  /**
   * When the kernel's record of the directory can vouch (directory-watcher.ts): a check that an
   * entry read from the index after this resolves is its file as it is now, with no stat (true
   * for a file read since the record was last doubted, unchanged since, and no index change since
   * this call). Undefined when nothing is watched.
   */
  vouching(): Promise<((entry: KeyEntry) => boolean) | undefined>;
  /**
   * The entry as its file is now: one stat; a file changed since it was indexed (a passphrase
   * changed by another tool) is read again and `forget` told, a file gone is dropped.
   */
  current(entry: KeyEntry, forget: Forget): Promise<KeyEntry | undefined>;
  /** Chain addresses in creation order, after `after` (exclusive); undefined: `after` unknown. */
  page(after: string | undefined, max: number): Promise<string[] | undefined>;
  unresolved(): UnresolvedKeyFile[];
  unresolvedEntries(): Promise<KeyEntry[]>;
  invalid(): InvalidKeyFile[];
  /** Records a name about to be written (durably), so a crash before its index entry is repaired. */
  journal(fileName: string): Promise<void>;
  /**
   * Reads these files as they are now and indexes them (or drops them when gone). `ownWrite`: the
   * directory's mtime before and after this store wrote them; when the index had seen the
   * directory as it was before, it has seen it as it is after (so the next open scans nothing).
   */
  syncNames(
    names: readonly string[],
    forget: Forget,
    ownWrite?: { before: bigint; after: bigint },
  ): Promise<SyncCounts>;
  /** The directory's mtime, as `syncNames`'s `ownWrite` wants it. */
  dirMtime(): Promise<bigint>;
  /** Marks a file as holding no usable key. */
  reject(entry: KeyEntry, problem: string): Promise<void>;
  /**
   * Compares the directory's names with the index: new names are read and indexed, names gone
   * are dropped (each batch under `exclusive`). Names already indexed are not read.
   */
  scan(options: {
    forget: Forget;
    exclusive: Exclusive;
    stopped: () => boolean;
    progress?: (progress: IndexProgress) => void;
    countFirst?: boolean;
  }): Promise<SyncCounts & { completed: boolean }>;
  /**
   * Reads the names and wallets the index holds into memory (8 bytes each), so that the first
   * walletRefresh does not pay for it and lockWallet reads nothing; the store starts it after
   * open, in the background.
   */
  loadNames(): Promise<void>;
  /** Searches the directory for a file named for this chain address (one pass, no reads). */
  findOwnFile(address: string): Promise<string | undefined>;
  /** Bytes the index takes on disk (LevelDB's estimate of its key range). */
  approximateSize(): Promise<number>;
}
