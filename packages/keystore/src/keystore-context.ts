import { DEFAULT_DIRECTORY_CHANGES_OPTIONS } from './directory-watcher';
import { KeyStoreError } from './errors';
import { createKeyCache, type KeyCache } from './key-cache';
import { createCreationClock } from './key-file-name';
import { createKeyIndex } from './key-index';
import type { KeyEntry, KeyIndex } from './key-index-api';
import { createKeyedMutex, type KeyedMutex } from './keyed-mutex';
import { type KeyStoreOptions, keyStoreSettings } from './keystore-api';
import { createDirectoryPasses, type DirectoryPasses } from './keystore-index-build';
import { createWalletLocks, type WalletLocks } from './lock-state';
import { createPassphraseThrottle, type PassphraseThrottle } from './passphrase-throttle';
import { normalizeAddress } from './wallet-address';

/** Queue key for changes to the directory listing (scan batches, new files, rewrites). */
export const DIRECTORY = '<directory>';
/** Queue key of whole scans (refresh, the background build): one at a time. */
const SCAN = '<scan>';
const MINUTE_MS = 60_000;

/**
 * What a key store's parts share: its index, cache, throttle, queues and locks, and the state of
 * its session. One object with one owner (keystore.ts opens and closes it); the passphrase checks
 * (key-checks.ts) and the writes (key-writes.ts) take it.
 */
export interface KeyStoreContext {
  readonly dir: string;
  readonly settings: ReturnType<typeof keyStoreSettings>;
  readonly cache: KeyCache;
  readonly throttle: PassphraseThrottle;
  readonly queue: KeyedMutex;
  readonly index: KeyIndex;
  readonly locks: WalletLocks;
  readonly passes: DirectoryPasses;
  readonly nextCreationTime: () => bigint;
  /** Drops a key from the cache (its file changed or went). */
  forget(id: string): void;
  isOpen(): boolean;
  /** The session that a call starts in; throws KEYSTORE_CLOSED when the store is not open. */
  ensureOpen(): number;
  /** Throws KEYSTORE_CLOSED (zeroing `secret`) when the session a call started in has ended. */
  ensureSession(expected: number, secret?: Uint8Array): void;
  /** A call that the close of its store interrupted in the index says so, as any other call. */
  inSession<T>(started: number, run: () => Promise<T>): Promise<T>;
  /** Opens a new session (the index open). */
  opened(): number;
  /** Ends the session: calls still running see KEYSTORE_CLOSED. */
  closed(): void;
  /** The wallets listed or their locks changed (see KeyStore.revision()). */
  changed(): void;
  revision(): number;
  isEntryLocked(entry: KeyEntry): boolean;
  /** How errors name a wallet: its address, else its key's identity or its file. */
  label(entry: KeyEntry): string;
  chainAddressOf(publicKey: Uint8Array): string;
  /**
   * The wallet of `address`, from the index; while the index is still being built, a wallet not
   * indexed yet is looked for by its file name (ours end in `--<address>.json`) and indexed.
   */
  lookup(address: string): Promise<KeyEntry | undefined>;
}

export function createKeyStoreContext(options: KeyStoreOptions): KeyStoreContext {
  const { dir, addressOf } = options;
  const settings = keyStoreSettings(options);
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
  const forget = (id: string) => cache.forget(id);
  const index = createKeyIndex(dir, addressOf, forget, {
    enabled: settings.watchDirectory && DEFAULT_DIRECTORY_CHANGES_OPTIONS.enabled,
  });
  /** Bumped by every change of the wallets listed or of their locks. */
  let revision = 0;
  /** Bumped by every open and close, so a call that outlives its session changes nothing. */
  let session = 0;
  let open = false;
  const locks = createWalletLocks(dir);

  function ensureSession(expected: number, secret?: Uint8Array): void {
    if (open && session === expected) return;
    secret?.fill(0);
    throw new KeyStoreError('KEYSTORE_CLOSED', 'key store was closed during the call');
  }

  const passes = createDirectoryPasses({
    index,
    forget,
    inSession: (started) => open && session === started,
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

  return {
    dir,
    settings,
    cache,
    throttle,
    queue,
    index,
    locks,
    passes,
    nextCreationTime: createCreationClock(),
    forget,
    isOpen: () => open,
    ensureOpen() {
      if (!open) throw new KeyStoreError('KEYSTORE_CLOSED', 'key store is not open');
      return session;
    },
    ensureSession,
    async inSession(started, run) {
      try {
        return await run();
      } catch (error) {
        if (!open || session !== started) {
          throw new KeyStoreError('KEYSTORE_CLOSED', 'key store was closed during the call');
        }
        throw error;
      }
    },
    opened() {
      revision++;
      session++;
      open = true;
      return session;
    },
    closed() {
      open = false;
      session++;
    },
    changed() {
      revision++;
    },
    revision: () => revision,
    isEntryLocked: (entry) => entry.address !== null && locks.isLocked(entry.address),
    label: (entry) => entry.address ?? (entry.id.startsWith('?') ? entry.fileName : entry.id),
    chainAddressOf: (publicKey) => normalizeAddress(addressOf(publicKey)),
    lookup,
  };
}
