import { mkdir } from 'node:fs/promises';
import { bytesToHex, getPublicKey, isValidPrivateKey, randomPrivateKey } from '@chain/crypto';
import { echoed } from '@chain/spec';
import { writeFileAtomic } from './atomic-file';
import { DEFAULT_DIRECTORY_CHANGES_OPTIONS } from './directory-watcher';
import {
  assertPassphrase,
  fileChanged,
  KeyStoreError,
  unknownWallet,
  walletLocked,
} from './errors';
import { ethereumAddressOf, normalizeEthereumAddress } from './ethereum-address';
import { createKeyCache } from './key-cache';
import { decryptKeyFile, encryptKeyFile, type ParsedKeyFile } from './key-file';
import { createCreationClock, keyFileName } from './key-file-name';
import { createKeyIndex } from './key-index';
import type { KeyEntry } from './key-index-api';
import { createKeyedMutex } from './keyed-mutex';
import {
  type Caller,
  type ImportOptions,
  type ImportResult,
  type KeyStore,
  type KeyStoreOptions,
  keyStoreSettings,
} from './keystore-api';
import { createDirectoryPasses } from './keystore-index-build';
import { createWalletLocks, isLockable, migrateLockState, readLockState } from './lock-state';
import { clientOf, createPassphraseThrottle } from './passphrase-throttle';
import { normalizeAddress } from './wallet-address';

export {
  type Caller,
  DEFAULT_KEYSTORE_OPTIONS,
  type ImportOptions,
  type ImportResult,
  type IndexBuildProgress,
  type KeyStore,
  type KeyStoreOptions,
  type RefreshResult,
  type UnresolvedKeyFile,
} from './keystore-api';

/** Queue key for changes to the directory listing (scan batches, new files, rewrites). */
const DIRECTORY = '<directory>';
/** Queue key of whole scans (refresh, the background build): one at a time. */
const SCAN = '<scan>';
const MINUTE_MS = 60_000;

export function createKeyStore(options: KeyStoreOptions): KeyStore {
  const { dir, addressOf } = options;
  const settings = keyStoreSettings(options);
  const { scrypt } = settings;

  const cache = createKeyCache();
  const throttle = createPassphraseThrottle({
    maxFailures: settings.maxAttemptsPerMinute,
    windowMs: MINUTE_MS,
    delayMs: settings.throttleDelayMs,
    maxWaiting: settings.maxWaitingPerClient,
    maxClients: settings.maxTrackedClients,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const queue = createKeyedMutex();
  const nextCreationTime = createCreationClock();
  const forget = (id: string) => cache.forget(id);

  const index = createKeyIndex(dir, addressOf, forget, {
    enabled: settings.watchDirectory && DEFAULT_DIRECTORY_CHANGES_OPTIONS.enabled,
  });
  const locks = createWalletLocks(dir);
  /** Bumped by every change of the wallets listed or of their locks (see revision()). */
  let revision = 0;
  /** Bumped by every open and close, so a call that outlives its session changes nothing. */
  let session = 0;
  let isOpen = false;
  let opening: Promise<void> | undefined;
  const passes = createDirectoryPasses({
    index,
    forget,
    inSession: (started) => isOpen && session === started,
    exclusive: (started, run) =>
      queue.runExclusive(DIRECTORY, async () => {
        ensureSession(started);
        const result = await run();
        if (result.added > 0 || result.removed > 0) revision++;
        return result;
      }),
    onePass: (run) => queue.runExclusive(SCAN, run),
    onIndexProgress: options.onIndexProgress,
  });

  function ensureOpen(): number {
    if (!isOpen) throw new KeyStoreError('KEYSTORE_CLOSED', 'key store is not open');
    return session;
  }

  function ensureSession(expected: number, secret?: Uint8Array): void {
    if (isOpen && session === expected) return;
    secret?.fill(0);
    throw new KeyStoreError('KEYSTORE_CLOSED', 'key store was closed during the call');
  }

  /** A call that the close of its store interrupted in the index says so, as any other call. */
  async function inSession<T>(started: number, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!isOpen || session !== started) {
        throw new KeyStoreError('KEYSTORE_CLOSED', 'key store was closed during the call');
      }
      throw error;
    }
  }

  function isEntryLocked(entry: KeyEntry): boolean {
    return entry.address !== null && locks.isLocked(entry.address);
  }

  function label(entry: KeyEntry): string {
    return entry.address ?? (entry.id.startsWith('?') ? entry.fileName : entry.id);
  }

  /** Whether the store holds `address`, without reading its file (has, isLocked). */
  async function holds(address: string): Promise<boolean> {
    const wanted = normalizeAddress(address);
    if (await index.holds(wanted)) return true;
    return passes.building() && (await lookup(wanted)) !== undefined;
  }

  /**
   * lockWallet's look-up: the name set in memory answers, so that a lock costs the same at any
   * size (a read of the index was a random read from disk at a million wallets); until that set
   * is loaded, and while the index is being built (a wallet it has not reached yet), holds().
   */
  async function holdsToLock(address: string): Promise<boolean> {
    const inMemory = index.heldInMemory(address);
    if (inMemory === true || (inMemory === false && !passes.building())) return inMemory;
    return holds(address);
  }

  async function holdsMany(addresses: readonly string[]): Promise<boolean[]> {
    const wanted = addresses.map(normalizeAddress);
    const held = await index.holdsMany(wanted);
    if (!passes.building()) return held;
    // While the index is being built, a wallet it has not reached yet is looked for on disk.
    return Promise.all(held.map(async (h, i) => h || (await lookup(wanted[i]!)) !== undefined));
  }

  /**
   * The wallet of `address`, from the index; while the index is still being built, a wallet not
   * indexed yet is looked for by its file name (ours end in `--<address>.json`) and indexed.
   */
  async function lookup(address: string): Promise<KeyEntry | undefined> {
    const wanted = normalizeAddress(address);
    const known = await index.byAddress(wanted);
    if (known !== undefined || !passes.building()) return known;
    const started = session;
    const name = await index.findOwnFile(wanted);
    if (name === undefined) return undefined;
    await queue.runExclusive(DIRECTORY, async () => {
      ensureSession(started);
      const { added } = await index.syncNames([name], forget);
      if (added > 0) revision++;
    });
    return index.byAddress(wanted);
  }

  /**
   * The key, once `passphrase` is proven right: by the cache's HMAC tag when the key is cached,
   * else by the key derivation and the MAC. Derivations run one at a time per client, and wrong
   * passphrases are throttled per client (see passphrase-throttle.ts). A cache check that fails is
   * counted at once, before anything is queued: parallel guesses cannot all reach the cheap check
   * before the first of them is counted.
   */
  async function verifyPassphrase(
    entry: KeyEntry,
    passphrase: string,
    client: string,
  ): Promise<Uint8Array> {
    assertPassphrase(passphrase);
    const started = ensureOpen();
    let counted = false;
    if (!throttle.isThrottled(client)) {
      const cached = cache.recall(entry.id, passphrase);
      if (cached !== undefined) return cached;
      if (cache.holds(entry.id)) {
        throttle.recordFailure(client);
        counted = true;
      }
    }
    return throttle.run(
      client,
      (slow) => checkPassphrase(entry, passphrase, client, { slow, counted, started }),
      counted ? 1 : 0,
    );
  }

  /** verifyPassphrase's part that runs in the client's turn. */
  async function checkPassphrase(
    entry: KeyEntry,
    passphrase: string,
    client: string,
    turn: { slow: boolean; counted: boolean; started: number },
  ): Promise<Uint8Array> {
    ensureSession(turn.started);
    // A check queued ahead may have filled the cache; a slow check never asks it.
    const cached = turn.slow ? undefined : cache.recall(entry.id, passphrase);
    const privateKey = cached ?? (await decryptCurrent(entry, passphrase, turn.started));
    if (privateKey === null) {
      if (!turn.counted) throttle.recordFailure(client);
      throw new KeyStoreError('WRONG_PASSPHRASE', `wrong passphrase for ${label(entry)}`, {
        param: 'passphrase',
      });
    }
    // A passphrase the cache did not know but the file accepts (another Unicode form of it).
    if (turn.counted) throttle.refund(client);
    if (cached === undefined && !isEntryLocked(entry) && (await index.isCurrent(entry))) {
      cache.remember(entry, privateKey, passphrase);
    }
    return privateKey;
  }

  /** The file's key for `passphrase`, or null; tried again if the file was replaced meanwhile. */
  async function decryptCurrent(
    entry: KeyEntry,
    passphrase: string,
    started: number,
  ): Promise<Uint8Array | null> {
    let current = entry;
    for (;;) {
      const privateKey = await decryptFileOf(current, current.file, passphrase);
      ensureSession(started, privateKey ?? undefined);
      if (await index.isCurrent(current)) return privateKey;
      const replaced = await index.current(current, forget);
      ensureSession(started, privateKey ?? undefined);
      // Gone, or only its index record changed (resolved meanwhile): the file decrypted stands.
      if (replaced === undefined || replaced.stamp === current.stamp) return privateKey;
      privateKey?.fill(0);
      current = replaced;
    }
  }

  async function decryptFileOf(
    entry: KeyEntry,
    file: ParsedKeyFile,
    passphrase: string,
  ): Promise<Uint8Array | null> {
    try {
      return await decryptKeyFile(file, passphrase);
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

  /**
   * The entry of `address` and its key, `passphrase` proven right. An address not listed may be
   * that of a file made elsewhere whose chain address is unknown: the passphrase is tried on every
   * such file, in the client's turn, and counts as one wrong passphrase when none opens.
   */
  async function checkedKey(
    address: string,
    passphrase: string,
    client: string,
    found?: { entry: KeyEntry | undefined },
  ): Promise<{ entry: KeyEntry; privateKey: Uint8Array }> {
    const started = ensureOpen();
    const wanted = normalizeAddress(address);
    const known = found?.entry ?? (found === undefined ? await current(wanted, client) : undefined);
    ensureSession(started);
    if (known !== undefined) {
      return { entry: known, privateKey: await verifyPassphrase(known, passphrase, client) };
    }
    if (index.unresolved().length === 0) throw unknownWallet(address);
    assertPassphrase(passphrase);
    return throttle.run(client, async (slow) => {
      ensureSession(started);
      const resolvedMeanwhile = await index.byAddress(wanted);
      if (resolvedMeanwhile !== undefined) {
        const turn = { slow, counted: false, started };
        const privateKey = await checkPassphrase(resolvedMeanwhile, passphrase, client, turn);
        return { entry: resolvedMeanwhile, privateKey };
      }
      const candidates = await index.unresolvedEntries();
      for (const candidate of candidates) {
        const found = await tryForeignFile(candidate, passphrase, started);
        if (found === null) continue;
        if (found.entry.address === wanted) return found;
        found.privateKey.fill(0);
      }
      throttle.recordFailure(client);
      throw unknownWallet(
        address,
        ` (the passphrase opens none of the ${candidates.length} key files made elsewhere)`,
      );
    });
  }

  /**
   * The wallet of `address` as its file is now (a stat, unless the directory's watch vouches for
   * it), looked up at once but handed on in the order the client's calls came (the throttle counts
   * wrong passphrases as they arrive). `before` runs in that turn (getPrivateKey's lock check).
   */
  function current(
    address: string,
    client: string,
    before?: (entry: KeyEntry) => Promise<void>,
  ): Promise<KeyEntry | undefined> {
    const found = (async () => {
      const vouches = await index.vouching();
      const listed = await lookup(address);
      if (listed === undefined || vouches?.(listed)) return listed;
      return index.current(listed, forget);
    })();
    // Taken in the client's turn; until then a failure must not count as unhandled.
    found.catch(() => undefined);
    return queue.runExclusive(`<client ${client}>`, async () => {
      const entry = await found;
      if (entry !== undefined) await before?.(entry);
      return entry;
    });
  }

  /** Decrypts an unresolved file and resolves it when the passphrase opens it. */
  async function tryForeignFile(
    entry: KeyEntry,
    passphrase: string,
    started: number,
  ): Promise<{ entry: KeyEntry; privateKey: Uint8Array } | null> {
    let privateKey: Uint8Array | null;
    try {
      privateKey = await decryptCurrent(entry, passphrase, started);
    } catch (error) {
      // A file whose MAC matches but whose content is not its key: reported, then passed over.
      if (!(error instanceof KeyStoreError) || error.reason !== 'INVALID_KEY_FILE') throw error;
      await markInvalid(entry, error.message.slice(entry.fileName.length + 2));
      return null;
    }
    if (privateKey === null) return null;
    const resolved = await resolveEntry(entry, getPublicKey(privateKey));
    if (resolved === null) {
      privateKey.fill(0);
      return null;
    }
    if (!isEntryLocked(resolved)) cache.remember(resolved, privateKey, passphrase);
    return { entry: resolved, privateKey };
  }

  async function markInvalid(entry: KeyEntry, problem: string): Promise<void> {
    await queue.runExclusive(DIRECTORY, async () => {
      if (!(await index.isCurrent(entry))) return;
      await index.reject(entry, problem);
      revision++;
    });
  }

  function chainAddressOf(publicKey: Uint8Array): string {
    return normalizeAddress(addressOf(publicKey));
  }

  /**
   * The file first, durably (atomic-file.ts), then the index; the name is journaled in the index
   * before, so a crash between the two is repaired at the next open without a scan. Rewrites keep
   * the creation time, which for files without a geth-style name is the mtime.
   */
  async function writeAndIndex(fileName: string, createdAt: bigint, json: unknown): Promise<void> {
    const text = `${JSON.stringify(json, null, 2)}\n`;
    const mtime = new Date(Number(createdAt / 1_000_000n));
    const before = await index.dirMtime();
    await index.journal(fileName);
    await writeFileAtomic(dir, fileName, text, { mtime });
    const after = await index.dirMtime();
    await index.syncNames([fileName], forget, { before, after });
    revision++;
  }

  async function addKey(
    privateKey: Uint8Array,
    passphrase: string,
    existingPolicy: ImportOptions['existing'] = 'keep',
  ): Promise<ImportResult> {
    assertPassphrase(passphrase);
    const started = ensureOpen();
    const publicKey = getPublicKey(privateKey);
    const id = ethereumAddressOf(publicKey);
    const address = chainAddressOf(publicKey);
    return queue.runExclusive(id, async () => {
      ensureSession(started);
      // While the index is built, a file of this key not indexed yet is found by its name.
      const existing = (await index.byId(id)) ?? (await lookup(address));
      if (existing !== undefined) {
        if (existingPolicy === 'reencrypt') {
          await reencryptEntry(existing, privateKey, passphrase, started);
          return { address, created: false, reencrypted: true };
        }
        // A foreign file of this very key: knowing the key, its public key is known too.
        if (existing.address === null) await resolveEntry(existing, publicKey);
        return { address, created: false, reencrypted: false };
      }
      const json = await encryptKeyFile(privateKey, passphrase, scrypt, address);
      const createdAt = nextCreationTime();
      const fileName = keyFileName(createdAt, address);
      const written = await queue.runExclusive(DIRECTORY, async () => {
        ensureSession(started);
        // A refresh may have found a copy of this key while scrypt ran.
        if ((await index.byId(id)) !== undefined) return false;
        await writeAndIndex(fileName, createdAt, json);
        return true;
      });
      const entry = written ? await index.byAddress(address) : undefined;
      if (entry === undefined || entry.fileName !== fileName) {
        return { address, created: false, reencrypted: false };
      }
      cache.remember(entry, privateKey, passphrase);
      // New keys start unlocked, even if a deleted file of the same key was locked.
      if (await locks.setLocked(address, false)) revision++;
      return { address, created: true, reencrypted: false };
    });
  }

  /**
   * Rewrites a key's file (same name, creation time and v3 id) encrypted under a new passphrase, at
   * this store's scrypt cost. The old passphrase stops working at once: the cache forgets it, and a
   * check that was deriving from the old file when it was replaced starts again on the new one.
   */
  async function reencryptEntry(
    entry: KeyEntry,
    privateKey: Uint8Array,
    passphrase: string,
    started: number,
  ): Promise<void> {
    const address = chainAddressOf(getPublicKey(privateKey));
    const json = await encryptKeyFile(privateKey, passphrase, scrypt, address);
    const v3Id = entry.file.json.id;
    const rewritten = typeof v3Id === 'string' ? { ...json, id: v3Id } : json;
    const id = await queue.runExclusive(DIRECTORY, async () => {
      ensureSession(started);
      const current = await index.current(entry, forget);
      if (current === undefined || current.fileName !== entry.fileName) {
        throw fileChanged(entry, 'privateKey');
      }
      await writeAndIndex(entry.fileName, entry.createdAt, rewritten);
      cache.forget(current.id);
      return ethereumAddressOf(getPublicKey(privateKey));
    });
    const rewrittenEntry = await index.byId(id);
    if (rewrittenEntry !== undefined && !isEntryLocked(rewrittenEntry)) {
      cache.remember(rewrittenEntry, privateKey, passphrase);
    }
  }

  /**
   * Records the chain field (and the `address` a file may lack) in a foreign file, rewritten
   * atomically, and lists the key. null when the entry is gone, or when another file already holds
   * this key (this one is then reported as a second copy, as a scan would have).
   */
  async function resolveEntry(entry: KeyEntry, publicKey: Uint8Array): Promise<KeyEntry | null> {
    const started = ensureOpen();
    const address = chainAddressOf(publicKey);
    const ethAddress = ethereumAddressOf(publicKey);
    return queue.runExclusive(DIRECTORY, async () => {
      ensureSession(started);
      if (!(await index.isCurrent(entry))) {
        const now = await index.byAddress(address);
        return now?.fileName === entry.fileName ? now : null;
      }
      if (entry.address !== null) return entry;
      const holder = await index.byId(ethAddress);
      if (holder !== undefined && holder.fileName !== entry.fileName) {
        await index.reject(entry, `holds the same key as ${holder.fileName}`);
        revision++;
        return null;
      }
      const json = {
        ...entry.file.json,
        address: ethAddress,
        chain: { address, publicKey: bytesToHex(publicKey) },
      };
      await writeAndIndex(entry.fileName, entry.createdAt, json);
      const resolved = await index.byAddress(address);
      return resolved?.fileName === entry.fileName ? resolved : null;
    });
  }

  return {
    open() {
      if (isOpen) return Promise.resolve();
      opening ??= (async () => {
        try {
          await mkdir(dir, { recursive: true, mode: 0o700 });
          // A corrupt lock state fails the open before anything else (INVALID_LOCK_STATE).
          await readLockState(dir);
          await locks.load();
          await migrateLockState(dir, locks);
          const { needsScan } = await index.open();
          revision++;
          session++;
          isOpen = true;
          if (needsScan) passes.startBuild(session);
          // The indexed names (for walletRefresh, lockWallet) read in the background, and a quiet
          // pass that, once complete, lets walletRefresh read only the names changed since
          // (directory-watcher.ts).
          else {
            index.loadNames().catch(() => undefined);
            passes.verify(session);
          }
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
      await passes.built();
      passes.reset();
      cache.clear();
      throttle.clear();
      revision++;
      // Writes in flight finish before the index closes (each holds the directory queue).
      await queue.runExclusive(DIRECTORY, () => index.close());
    },

    async page(after, max) {
      const started = ensureOpen();
      return inSession(started, async () => {
        const addresses = await index.page(after, max);
        if (addresses === undefined) throw unknownWallet(String(after), '', 'after');
        return addresses;
      });
    },

    count() {
      ensureOpen();
      return index.walletCount();
    },

    async has(address) {
      const started = ensureOpen();
      return inSession(started, () => holds(address));
    },

    async hasMany(addresses) {
      const started = ensureOpen();
      return inSession(started, () => holdsMany(addresses));
    },

    indexing() {
      return isOpen ? passes.progress() : null;
    },

    indexed() {
      return passes.built();
    },

    async indexBytes() {
      const started = ensureOpen();
      return inSession(started, () => index.approximateSize());
    },

    async create(passphrase) {
      const privateKey = randomPrivateKey();
      try {
        const started = ensureOpen();
        return (await inSession(started, () => addKey(privateKey, passphrase))).address;
      } finally {
        privateKey.fill(0);
      }
    },

    async importKey(privateKey, passphrase, importOptions = {}) {
      if (!(privateKey instanceof Uint8Array) || !isValidPrivateKey(privateKey)) {
        throw new KeyStoreError(
          'INVALID_PRIVATE_KEY',
          'private key must be 32 bytes holding a scalar in [1, n-1] of secp256k1',
          { param: 'privateKey' },
        );
      }
      const started = ensureOpen();
      return inSession(started, () => addKey(privateKey, passphrase, importOptions.existing));
    },

    async getPrivateKey(address, passphrase, caller: Caller = {}) {
      const started = ensureOpen();
      return inSession(started, async () => {
        const client = clientOf(caller.client);
        // A locked wallet is refused before any passphrase check: no guessing against it either.
        const known = await current(normalizeAddress(address), client, async (listed) => {
          if (isEntryLocked(listed)) throw walletLocked(listed);
        });
        const { entry, privateKey } = await checkedKey(address, passphrase, client, {
          entry: known,
        });
        // lock() may have run while scrypt did.
        if (isEntryLocked(entry)) {
          privateKey.fill(0);
          throw walletLocked(entry);
        }
        ensureSession(started, privateKey);
        return privateKey;
      });
    },

    revision() {
      return revision;
    },

    async isLocked(address) {
      const started = ensureOpen();
      return inSession(started, async () => {
        const wanted = normalizeAddress(address);
        return isLockable(wanted) && locks.isLocked(wanted) && holds(wanted);
      });
    },

    async lock(address) {
      const started = ensureOpen();
      return inSession(started, async () => {
        const wanted = normalizeAddress(address);
        if (!isLockable(wanted) || !(await holdsToLock(wanted))) return false;
        // By address: the key's identity is not looked up (no read of the index).
        cache.forgetWallet(wanted);
        if (await locks.setLocked(wanted, true)) revision++;
        return true;
      });
    },

    async unlock(address, passphrase, caller: Caller = {}) {
      const started = ensureOpen();
      return inSession(started, async () => {
        const { entry, privateKey } = await checkedKey(
          address,
          passphrase,
          clientOf(caller.client),
        );
        try {
          ensureSession(started);
          cache.remember(entry, privateKey, passphrase);
          if (entry.address !== null && (await locks.setLocked(entry.address, false))) {
            revision++;
          }
          return true;
        } finally {
          privateKey.fill(0);
        }
      });
    },

    async refresh() {
      const started = ensureOpen();
      return inSession(started, async () => {
        // A build under way is such a scan already: its end is the refresh's start.
        await passes.built();
        ensureSession(started);
        const { added, removed } = await passes.scan(started, false);
        ensureSession(started);
        return {
          added,
          removed,
          loaded: index.walletCount(),
          unresolved: index.unresolved(),
          invalid: index.invalid(),
        };
      });
    },

    async resolveForeign(ethAddress, passphrase, caller: Caller = {}) {
      const started = ensureOpen();
      return inSession(started, async () => {
        const id = normalizeEthereumAddress(ethAddress);
        const entry = id === null ? undefined : await index.byId(id);
        if (entry === undefined) {
          throw new KeyStoreError(
            'UNKNOWN_WALLET',
            `no key file for address ${echoed(String(ethAddress))} in the key store`,
            { param: 'ethAddress' },
          );
        }
        if (entry.address !== null) return entry.address;
        const privateKey = await verifyPassphrase(entry, passphrase, clientOf(caller.client));
        try {
          const resolved = await queue.runExclusive(entry.id, () =>
            resolveEntry(entry, getPublicKey(privateKey)),
          );
          if (resolved === null || resolved.address === null) {
            throw fileChanged(entry, 'ethAddress');
          }
          if (isEntryLocked(resolved)) cache.forget(resolved.id);
          return resolved.address;
        } finally {
          privateKey.fill(0);
        }
      });
    },

    unresolved() {
      ensureOpen();
      return index.unresolved();
    },

    async walletOfEthereumAddress(ethAddress) {
      ensureOpen();
      const id = normalizeEthereumAddress(ethAddress);
      return id === null ? undefined : (await index.byId(id))?.address;
    },

    invalidFiles() {
      ensureOpen();
      return index.invalid();
    },
  };
}
