import { mkdir } from 'node:fs/promises';
import {
  ADDRESS_PREFIX_LENGTH,
  bytesToHex,
  getPublicKey,
  isValidPrivateKey,
  randomPrivateKey,
} from '@chain/crypto';
import { writeFileAtomic } from './atomic-file';
import { createAttemptLimiter } from './attempt-limiter';
import { KeyStoreError } from './errors';
import { ethereumAddressOf, normalizeEthereumAddress } from './ethereum-address';
import { type ScryptParams, scryptParamsProblem } from './kdf';
import { createKeyCache } from './key-cache';
import { type InvalidKeyFile, type KeyFileRecord, scanKeyDirectory } from './key-directory';
import { decryptKeyFile, encryptKeyFile, type ParsedKeyFile, parseKeyFile } from './key-file';
import { createCreationClock, keyFileName } from './key-file-name';
import { createKeyedMutex } from './keyed-mutex';
import { readLockState, writeLockState } from './lock-state';

export interface KeyStoreOptions {
  /** The key directory (the node passes `<datadir>/keystore`); created with mode 0700 if missing. */
  dir: string;
  /** The node's chain address of a 33-byte compressed public key, network prefix included. */
  addressOf: (publicKey33: Uint8Array) => string;
  /** scrypt cost for files written here; files written elsewhere keep their own parameters. */
  scrypt?: ScryptParams;
  /** Wrong passphrases per wallet within a minute before further attempts fail fast. */
  maxAttemptsPerMinute?: number;
}

export const DEFAULT_KEYSTORE_OPTIONS = {
  /** Geth's "standard" cost: about 1 s and 256 MiB per passphrase check. */
  scrypt: { N: 2 ** 18, r: 8, p: 1 },
  maxAttemptsPerMinute: 30,
} as const satisfies Required<Omit<KeyStoreOptions, 'dir' | 'addressOf'>>;

export interface RefreshResult {
  /** Keys found that were not in the store before (resolved or not). */
  added: number;
  /** Keys whose file is gone. */
  removed: number;
  /** Files in the directory that hold no usable key. */
  invalid: InvalidKeyFile[];
}

export interface KeyStore {
  /** Creates the directory (0700), loads every key file and the persisted lock state. */
  open(): Promise<void>;
  /** Idempotent; wipes every cached key. */
  close(): Promise<void>;
  /** Chain addresses, in file-creation order. */
  list(): string[];
  count(): number;
  /** The prefix is compared exactly, the hex part in either case. */
  has(address: string): boolean;
  /** A new random key encrypted under `passphrase`; returns its address. */
  create(passphrase: string): Promise<string>;
  /** created=false when the key is already in the store, which is then left as it is. */
  importKey(
    privateKey: Uint8Array,
    passphrase: string,
  ): Promise<{ address: string; created: boolean }>;
  /** A copy of the key (the caller should wipe it after use). */
  getPrivateKey(address: string, passphrase: string): Promise<Uint8Array>;
  isLocked(address: string): boolean;
  /** A number that changes whenever the listed wallets or their lock states do. */
  revision(): number;
  /** false if the address is not in the store; the lock survives restarts. */
  lock(address: string): Promise<boolean>;
  /** Checks the passphrase (even for a wallet that is not locked), unlocks, persists; true. */
  unlock(address: string, passphrase: string): Promise<boolean>;
  /** Rescans the directory for files added, removed or changed by hand or by other tools. */
  refresh(): Promise<RefreshResult>;
  /**
   * A v3 file made elsewhere has no `chain` field, so its chain address is unknown until it is
   * decrypted once: this decrypts it, records the chain field in the file and returns the address.
   */
  resolveForeign(ethAddress: string, passphrase: string): Promise<string>;
  /** Ethereum-style addresses (40 hex, no 0x) of foreign files not yet resolved. */
  unresolved(): string[];
  /** Files skipped by the last scan (open or refresh), and why. */
  invalidFiles(): InvalidKeyFile[];
}

interface KeyEntry {
  /** The Ethereum-style address: known for every file, so it identifies keys before resolution. */
  readonly id: string;
  readonly fileName: string;
  readonly createdAt: bigint;
  file: ParsedKeyFile;
  /** Normalised chain address, null until the key's public key is known. */
  address: string | null;
}

/** Queue key for changes to the directory listing (scans, new files, rewrites). */
const DIRECTORY = '<directory>';
const MINUTE_MS = 60_000;

export function createKeyStore(options: KeyStoreOptions): KeyStore {
  const { dir, addressOf } = options;
  const scrypt = options.scrypt ?? DEFAULT_KEYSTORE_OPTIONS.scrypt;
  const maxAttempts = options.maxAttemptsPerMinute ?? DEFAULT_KEYSTORE_OPTIONS.maxAttemptsPerMinute;
  const scryptProblem = scryptParamsProblem(scrypt);
  if (scryptProblem !== null) throw new RangeError(`KeyStoreOptions.scrypt: ${scryptProblem}`);
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError('KeyStoreOptions.maxAttemptsPerMinute must be a positive integer');
  }

  const cache = createKeyCache();
  const limiter = createAttemptLimiter({ maxFailures: maxAttempts, windowMs: MINUTE_MS });
  const queue = createKeyedMutex();
  const nextCreationTime = createCreationClock();

  let entries: KeyEntry[] = [];
  let byId = new Map<string, KeyEntry>();
  let byAddress = new Map<string, KeyEntry>();
  let locked = new Set<string>();
  let invalid: InvalidKeyFile[] = [];
  /** Bumped by every change of the wallets listed or of their locks (see revision()). */
  let revision = 0;
  /** Bumped by every open and close, so a call that outlives its session changes nothing. */
  let session = 0;
  let isOpen = false;
  let opening: Promise<void> | undefined;
  let persisting: Promise<unknown> = Promise.resolve();

  function ensureOpen(): number {
    if (!isOpen) throw new KeyStoreError('KEYSTORE_CLOSED', 'key store is not open');
    return session;
  }

  function ensureSession(expected: number, secret?: Uint8Array): void {
    if (isOpen && session === expected) return;
    secret?.fill(0);
    throw new KeyStoreError('KEYSTORE_CLOSED', 'key store was closed during the call');
  }

  function normalizeAddress(address: string): string {
    if (typeof address !== 'string') return '';
    return (
      address.slice(0, ADDRESS_PREFIX_LENGTH) + address.slice(ADDRESS_PREFIX_LENGTH).toLowerCase()
    );
  }

  function walletEntry(address: string): KeyEntry {
    ensureOpen();
    const entry = byAddress.get(normalizeAddress(address));
    if (entry === undefined) {
      throw new KeyStoreError(
        'UNKNOWN_WALLET',
        `wallet ${shown(address)} is not in the key store`,
        {
          param: 'address',
        },
      );
    }
    return entry;
  }

  function isEntryLocked(entry: KeyEntry): boolean {
    return entry.address !== null && locked.has(entry.address);
  }

  function walletLocked(entry: KeyEntry): KeyStoreError {
    return new KeyStoreError('WALLET_LOCKED', `wallet ${entry.address} is locked`, {
      param: 'address',
    });
  }

  function label(entry: KeyEntry): string {
    return entry.address ?? entry.id;
  }

  function assertAttemptAllowed(entry: KeyEntry): void {
    const waitMs = limiter.retryAfter(entry.id);
    if (waitMs > 0) {
      throw new KeyStoreError(
        'TOO_MANY_ATTEMPTS',
        `too many wrong passphrases for ${label(entry)}: retry in ${Math.ceil(waitMs / 1000)} s`,
        { param: 'passphrase' },
      );
    }
  }

  function assertPassphrase(passphrase: unknown): asserts passphrase is string {
    if (typeof passphrase !== 'string') {
      throw new KeyStoreError('WRONG_PASSPHRASE', 'passphrase must be a string', {
        param: 'passphrase',
      });
    }
  }

  /**
   * The key, once `passphrase` is proven right: by the cache's HMAC tag when the key is cached,
   * else by scrypt and the MAC. At most one scrypt per key runs at a time (later calls queue),
   * and wrong passphrases are rate limited per key. The limit is checked before the cache too,
   * or guesses against the cheap cache check would bypass it.
   */
  async function verifyPassphrase(entry: KeyEntry, passphrase: string): Promise<Uint8Array> {
    assertPassphrase(passphrase);
    const started = ensureOpen();
    assertAttemptAllowed(entry);
    const cached = cache.recall(entry.id, passphrase);
    if (cached !== undefined) return cached;
    return queue.runExclusive(entry.id, async () => {
      ensureSession(started);
      // Failures queued ahead of this call may have used up the allowance, and a success queued
      // ahead may have filled the cache.
      assertAttemptAllowed(entry);
      const nowCached = cache.recall(entry.id, passphrase);
      if (nowCached !== undefined) return nowCached;
      const privateKey = await decryptFileOf(entry, passphrase);
      ensureSession(started, privateKey ?? undefined);
      if (privateKey === null) {
        limiter.recordFailure(entry.id);
        throw new KeyStoreError('WRONG_PASSPHRASE', `wrong passphrase for ${label(entry)}`, {
          param: 'passphrase',
        });
      }
      limiter.reset(entry.id);
      if (!isEntryLocked(entry)) cache.remember(entry.id, privateKey, passphrase);
      return privateKey;
    });
  }

  async function decryptFileOf(entry: KeyEntry, passphrase: string): Promise<Uint8Array | null> {
    try {
      return await decryptKeyFile(entry.file, passphrase);
    } catch (error) {
      if (error instanceof KeyStoreError) {
        throw new KeyStoreError(
          'INVALID_KEY_FILE',
          `${entry.fileName}: ${error.message.replace(/^invalid key file: /, '')}`,
        );
      }
      throw error;
    }
  }

  function persistLocks(): Promise<void> {
    // Each write serialises the state as it is when the write starts, so the last one wins.
    const write = persisting.then(() => writeLockState(dir, locked));
    persisting = write.catch(() => undefined);
    return write;
  }

  function sortedInsert(entry: KeyEntry): void {
    let index = entries.length;
    while (index > 0 && entries[index - 1]!.createdAt > entry.createdAt) index--;
    entries.splice(index, 0, entry);
  }

  function chainAddressOf(publicKey: Uint8Array): string {
    return normalizeAddress(addressOf(publicKey));
  }

  function entryFromRecord(record: KeyFileRecord): KeyEntry {
    const previous = byId.get(record.ethAddress);
    if (previous !== undefined && sameFile(previous, record)) return previous;
    // New, or rewritten by someone else (a changed passphrase): the cached key no longer belongs
    // to the passphrase that unlocked it.
    cache.forget(record.ethAddress);
    return {
      id: record.ethAddress,
      fileName: record.fileName,
      createdAt: record.createdAt,
      file: record.file,
      address: record.file.chain === null ? null : chainAddressOf(record.file.chain.publicKey),
    };
  }

  async function load(): Promise<{ added: number; removed: number }> {
    const scan = await scanKeyDirectory(dir);
    const next: KeyEntry[] = [];
    const skipped: InvalidKeyFile[] = [...scan.invalid];
    for (const record of scan.records) {
      try {
        next.push(entryFromRecord(record));
      } catch {
        skipped.push({ file: record.fileName, problem: 'no chain address for its public key' });
      }
    }
    const nextIds = new Set(next.map((entry) => entry.id));
    let removed = 0;
    for (const id of byId.keys()) {
      if (nextIds.has(id)) continue;
      removed++;
      cache.forget(id);
    }
    const added = next.filter((entry) => !byId.has(entry.id)).length;
    entries = next;
    byId = new Map(next.map((entry) => [entry.id, entry]));
    byAddress = new Map();
    for (const entry of next) if (entry.address !== null) byAddress.set(entry.address, entry);
    invalid = skipped;
    revision++;
    return { added, removed };
  }

  /** Rewrites keep the creation time, which for files without a geth-style name is the mtime. */
  async function writeKeyFile(entry: KeyEntry): Promise<void> {
    const text = `${JSON.stringify(entry.file.json, null, 2)}\n`;
    const mtime = new Date(Number(entry.createdAt / 1_000_000n));
    await writeFileAtomic(dir, entry.fileName, text, { mtime });
  }

  async function addKey(
    privateKey: Uint8Array,
    passphrase: string,
  ): Promise<{ address: string; created: boolean }> {
    assertPassphrase(passphrase);
    const started = ensureOpen();
    const publicKey = getPublicKey(privateKey);
    const id = ethereumAddressOf(publicKey);
    const address = chainAddressOf(publicKey);
    return queue.runExclusive(id, async () => {
      ensureSession(started);
      const existing = byId.get(id);
      if (existing !== undefined) {
        // A foreign file of this very key: knowing the key, its public key is known too.
        if (existing.address === null) await resolveEntry(existing, publicKey, address);
        return { address, created: false };
      }
      const json = await encryptKeyFile(privateKey, passphrase, scrypt, address);
      const createdAt = nextCreationTime();
      const entry: KeyEntry = {
        id,
        fileName: keyFileName(createdAt, address),
        createdAt,
        file: parseKeyFile(json),
        address,
      };
      await queue.runExclusive(DIRECTORY, async () => {
        ensureSession(started);
        // A refresh may have found a copy of this key while scrypt ran.
        if (byId.has(id)) return;
        await writeKeyFile(entry);
        sortedInsert(entry);
        byId.set(id, entry);
        byAddress.set(address, entry);
        revision++;
      });
      if (byId.get(id) !== entry) return { address, created: false };
      cache.remember(id, privateKey, passphrase);
      // New keys start unlocked, even if a deleted file of the same key was locked.
      if (locked.delete(address)) {
        revision++;
        await persistLocks();
      }
      return { address, created: true };
    });
  }

  /** Records the chain field in a foreign file (rewritten atomically) and lists the key. */
  async function resolveEntry(
    entry: KeyEntry,
    publicKey: Uint8Array,
    address: string,
  ): Promise<void> {
    const started = ensureOpen();
    await queue.runExclusive(DIRECTORY, async () => {
      ensureSession(started);
      if (byId.get(entry.id) !== entry) {
        throw new KeyStoreError(
          'UNKNOWN_WALLET',
          `the key file of ${entry.id} changed or disappeared; refresh and retry`,
          { param: 'ethAddress' },
        );
      }
      if (entry.address !== null) return;
      const json = { ...entry.file.json, chain: { address, publicKey: bytesToHex(publicKey) } };
      const file = parseKeyFile(json);
      await writeKeyFile({ ...entry, file });
      entry.file = file;
      entry.address = address;
      byAddress.set(address, entry);
      revision++;
    });
  }

  return {
    open() {
      if (isOpen) return Promise.resolve();
      opening ??= (async () => {
        try {
          await mkdir(dir, { recursive: true, mode: 0o700 });
          const lockState = await readLockState(dir);
          entries = [];
          byId = new Map();
          byAddress = new Map();
          await load();
          locked = new Set([...lockState].map(normalizeAddress));
          revision++;
          session++;
          isOpen = true;
        } finally {
          opening = undefined;
        }
      })();
      return opening;
    },

    async close() {
      if (opening !== undefined) await opening.catch(() => undefined);
      if (!isOpen) return;
      isOpen = false;
      session++;
      cache.clear();
      limiter.clear();
      entries = [];
      byId = new Map();
      byAddress = new Map();
      revision++;
      await persisting;
    },

    list() {
      ensureOpen();
      return entries.flatMap((entry) => (entry.address === null ? [] : [entry.address]));
    },

    count() {
      ensureOpen();
      return byAddress.size;
    },

    has(address) {
      ensureOpen();
      return byAddress.has(normalizeAddress(address));
    },

    async create(passphrase) {
      const privateKey = randomPrivateKey();
      try {
        return (await addKey(privateKey, passphrase)).address;
      } finally {
        privateKey.fill(0);
      }
    },

    async importKey(privateKey, passphrase) {
      if (!(privateKey instanceof Uint8Array) || !isValidPrivateKey(privateKey)) {
        throw new KeyStoreError(
          'INVALID_PRIVATE_KEY',
          'private key must be 32 bytes holding a scalar in [1, n-1] of secp256k1',
          { param: 'privateKey' },
        );
      }
      return addKey(privateKey, passphrase);
    },

    async getPrivateKey(address, passphrase) {
      const entry = walletEntry(address);
      if (isEntryLocked(entry)) throw walletLocked(entry);
      const privateKey = await verifyPassphrase(entry, passphrase);
      // lock() may have run while scrypt did.
      if (isEntryLocked(entry)) {
        privateKey.fill(0);
        throw walletLocked(entry);
      }
      return privateKey;
    },

    revision() {
      return revision;
    },

    isLocked(address) {
      ensureOpen();
      const entry = byAddress.get(normalizeAddress(address));
      return entry !== undefined && isEntryLocked(entry);
    },

    async lock(address) {
      ensureOpen();
      const entry = byAddress.get(normalizeAddress(address));
      if (entry === undefined || entry.address === null) return false;
      cache.forget(entry.id);
      if (!locked.has(entry.address)) {
        locked.add(entry.address);
        revision++;
        await persistLocks();
      }
      return true;
    },

    async unlock(address, passphrase) {
      const entry = walletEntry(address);
      const started = session;
      const privateKey = await verifyPassphrase(entry, passphrase);
      try {
        ensureSession(started);
        cache.remember(entry.id, privateKey, passphrase);
        if (entry.address !== null && locked.delete(entry.address)) {
          revision++;
          await persistLocks();
        }
        return true;
      } finally {
        privateKey.fill(0);
      }
    },

    async refresh() {
      const started = ensureOpen();
      return queue.runExclusive(DIRECTORY, async () => {
        ensureSession(started);
        const counts = await load();
        return { ...counts, invalid: [...invalid] };
      });
    },

    async resolveForeign(ethAddress, passphrase) {
      ensureOpen();
      const id = normalizeEthereumAddress(ethAddress);
      const entry = id === null ? undefined : byId.get(id);
      if (entry === undefined) {
        throw new KeyStoreError(
          'UNKNOWN_WALLET',
          `no key file for address ${shown(ethAddress)} in the key store`,
          { param: 'ethAddress' },
        );
      }
      if (entry.address !== null) return entry.address;
      const privateKey = await verifyPassphrase(entry, passphrase);
      try {
        const publicKey = getPublicKey(privateKey);
        const address = chainAddressOf(publicKey);
        await queue.runExclusive(entry.id, () => resolveEntry(entry, publicKey, address));
        if (isEntryLocked(entry)) cache.forget(entry.id);
        return address;
      } finally {
        privateKey.fill(0);
      }
    },

    unresolved() {
      ensureOpen();
      return entries.flatMap((entry) => (entry.address === null ? [entry.id] : []));
    },

    invalidFiles() {
      ensureOpen();
      return [...invalid];
    },
  };
}

function sameFile(entry: KeyEntry, record: KeyFileRecord): boolean {
  const a = entry.file;
  const b = record.file;
  return (
    entry.fileName === record.fileName &&
    bytesToHex(a.mac) === bytesToHex(b.mac) &&
    bytesToHex(a.ciphertext) === bytesToHex(b.ciphertext) &&
    (a.chain === null) === (b.chain === null)
  );
}

/** Caller input echoed in a message, bounded so a hostile value cannot flood logs. */
function shown(value: unknown): string {
  const text = String(value);
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}
