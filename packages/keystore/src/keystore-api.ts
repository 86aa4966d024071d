import { withDefaults } from '@chain/spec';
import { type ScryptParams, scryptParamsProblem } from './kdf';
import type { InvalidKeyFile } from './key-directory';
import type { IndexProgress } from './key-index-api';
import type { ThrottleClock } from './passphrase-throttle';

export interface KeyStoreOptions {
  /** The key directory (the node passes `<datadir>/keystore`); created with mode 0700 if missing. */
  dir: string;
  /** The node's chain address of a 33-byte compressed public key, network prefix included. */
  addressOf: (publicKey33: Uint8Array) => string;
  /** scrypt cost for files written here; files written elsewhere keep their own parameters. */
  scrypt?: ScryptParams;
  /** Wrong passphrases per client within a minute before its checks go the slow way. */
  maxAttemptsPerMinute?: number;
  /** Wait before each passphrase check of a client over its allowance. */
  throttleDelayMs?: number;
  /** Checks a client over its allowance may have queued; more are refused (TOO_MANY_ATTEMPTS). */
  maxWaitingPerClient?: number;
  /** Clients whose wrong passphrases are remembered; past it, new clients share one allowance. */
  maxTrackedClients?: number;
  /** The throttle's time (tests replace it). */
  clock?: ThrottleClock;
  /**
   * Told of the background index build's progress (after each batch), and once with `finished`
   * (or `error`) at its end: the node logs it.
   */
  onIndexProgress?: (progress: IndexBuildProgress) => void;
  /**
   * Whether walletRefresh reads only the names the kernel told changed (inotify, Linux) once a
   * whole pass vouched for the index, instead of listing the directory each time. Off for a key
   * directory whose changes this kernel does not see (a network file system written from
   * another machine): every walletRefresh is then a whole pass.
   */
  watchDirectory?: boolean;
}

export interface IndexBuildProgress extends IndexProgress {
  finished: boolean;
  /** Why the build stopped short (the store stays usable; the next open builds again). */
  error?: string;
}

export const DEFAULT_KEYSTORE_OPTIONS = {
  /** Geth's "standard" cost: about 1 s and 256 MiB per passphrase check. */
  scrypt: { N: 2 ** 18, r: 8, p: 1 },
  maxAttemptsPerMinute: 30,
  /** A minute / 30: a client over its allowance keeps guessing no faster than it was allowed to. */
  throttleDelayMs: 2_000,
  /** So the owner of a wallet calling from a guesser's address waits at most 8 slow checks. */
  maxWaitingPerClient: 8,
  maxTrackedClients: 10_000,
  watchDirectory: true,
} as const satisfies Required<
  Omit<KeyStoreOptions, 'dir' | 'addressOf' | 'clock' | 'onIndexProgress'>
>;

/** Who calls: the key store throttles wrong passphrases per client. */
export interface Caller {
  /** The RPC caller's remote address; omitted for calls made inside the process. */
  client?: string;
}

export interface ImportOptions {
  /**
   * What to do when the key is already in the store: `keep` its file as it is (the default), or
   * `reencrypt` it under the passphrase given (anyone holding the raw key owns it anyway). A locked
   * wallet stays locked either way.
   */
  existing?: 'keep' | 'reencrypt';
}

export interface ImportResult {
  address: string;
  /** false when the key was already in the store. */
  created: boolean;
  /** true when an existing file was rewritten under the new passphrase. */
  reencrypted: boolean;
}

/** A file made elsewhere whose chain address is not known until its passphrase opens it. */
export interface UnresolvedKeyFile {
  file: string;
  /** Its Ethereum-style address, null when the file does not say. */
  ethAddress: string | null;
}

export interface RefreshResult {
  /** Keys found that were not in the store before (resolved or not). */
  added: number;
  /** Keys whose file is gone. */
  removed: number;
  /** Wallets usable after the scan (what `count()` says). */
  loaded: number;
  /** Files made elsewhere, loaded but waiting for their passphrase (see `getPrivateKey`). */
  unresolved: UnresolvedKeyFile[];
  /** Files in the directory that hold no usable key. */
  invalid: InvalidKeyFile[];
}

export interface KeyStore {
  /**
   * Creates the directory (0700) and opens its index (`<dir>/.index`), without reading the key
   * files: O(1) in wallets. An index that is missing, or older than the directory, is built (or
   * brought up to date) in the background, while every call works: see `indexing()`.
   */
  open(): Promise<void>;
  /** Idempotent; stops a background build (the next open resumes it) and wipes every cached key. */
  close(): Promise<void>;
  /**
   * Up to `max` chain addresses in file-creation order, after the wallet `after` (from the start
   * when omitted): UNKNOWN_WALLET (param `after`) when `after` is not in the store.
   */
  page(after: string | undefined, max: number): Promise<string[]>;
  /** Wallets indexed (O(1)); while the index is being built, those indexed so far. */
  count(): number;
  /** The prefix is compared exactly, the hex part in either case. */
  has(address: string): Promise<boolean>;
  /** `has` of many addresses, in order, with one read of the index for all of them. */
  hasMany(addresses: readonly string[]): Promise<boolean[]>;
  /** null once the index is complete, else how far its background build is. */
  indexing(): IndexBuildProgress | null;
  /** Resolves when no background pass over the directory runs (its build, or the check after open). */
  indexed(): Promise<void>;
  /** Bytes the index takes on disk (an estimate). */
  indexBytes(): Promise<number>;
  /** A new random key encrypted under `passphrase`; returns its address. */
  create(passphrase: string): Promise<string>;
  importKey(
    privateKey: Uint8Array,
    passphrase: string,
    options?: ImportOptions,
  ): Promise<ImportResult>;
  /**
   * A copy of the key (the caller should wipe it after use). An address not listed may be the key
   * of a file made elsewhere, not resolved yet: the passphrase is then tried on those files, and
   * the ones it opens are resolved (their chain field recorded).
   */
  getPrivateKey(address: string, passphrase: string, caller?: Caller): Promise<Uint8Array>;
  isLocked(address: string): Promise<boolean>;
  /** A number that changes whenever the listed wallets or their lock states do. */
  revision(): number;
  /** false if the address is not in the store; the lock survives restarts. */
  lock(address: string): Promise<boolean>;
  /** Checks the passphrase (even for a wallet that is not locked), unlocks, persists; true. */
  unlock(address: string, passphrase: string, caller?: Caller): Promise<boolean>;
  /**
   * Compares the directory's names with the index: files added by hand or by other tools are read
   * and indexed, files gone are dropped; files already indexed are not read (a file changed in
   * place is read again when its wallet is next used: each use stats its file).
   */
  refresh(): Promise<RefreshResult>;
  /**
   * A v3 file made elsewhere has no `chain` field, so its chain address is unknown until it is
   * decrypted once: this decrypts it, records the chain field in the file and returns the address.
   */
  resolveForeign(ethAddress: string, passphrase: string, caller?: Caller): Promise<string>;
  /** Files made elsewhere not yet resolved. */
  unresolved(): UnresolvedKeyFile[];
  /**
   * The wallet of the key file whose Ethereum-style address is `ethAddress` (either case, with or
   * without 0x): its chain address, null while the file waits for its passphrase, undefined when
   * no file gives that address. What the owner of a file made elsewhere knows is its 0x address.
   */
  walletOfEthereumAddress(ethAddress: string): Promise<string | null | undefined>;
  /** Files skipped by the last scan (open or refresh) or found unusable since, and why. */
  invalidFiles(): InvalidKeyFile[];
}

/** The options with their defaults, checked (a RangeError names the option at fault). */
export function keyStoreSettings(options: KeyStoreOptions) {
  const settings = withDefaults(DEFAULT_KEYSTORE_OPTIONS, options);
  const scryptProblem = scryptParamsProblem(settings.scrypt);
  if (scryptProblem !== null) throw new RangeError(`KeyStoreOptions.scrypt: ${scryptProblem}`);
  for (const name of [
    'maxAttemptsPerMinute',
    'maxWaitingPerClient',
    'maxTrackedClients',
  ] as const) {
    const value = settings[name];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`KeyStoreOptions.${name} must be a positive integer`);
    }
  }
  if (!Number.isSafeInteger(settings.throttleDelayMs) || settings.throttleDelayMs < 0) {
    throw new RangeError('KeyStoreOptions.throttleDelayMs must be a non-negative integer');
  }
  return settings;
}
