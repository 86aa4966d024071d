import { mkdir } from 'node:fs/promises';
import { getPublicKey, isValidPrivateKey, randomPrivateKey } from '@chain/crypto';
import { echoed } from '@chain/spec';
import { fileChanged, KeyStoreError, unknownWallet, walletLocked } from './errors';
import { normalizeEthereumAddress } from './ethereum-address';
import { createKeyChecks } from './key-checks';
import { createKeyWrites } from './key-writes';
import type { Caller, KeyStore, KeyStoreOptions } from './keystore-api';
import { createKeyStoreContext, DIRECTORY } from './keystore-context';
import { isLockable, migrateLockState, readLockState } from './lock-state';
import { clientOf } from './passphrase-throttle';
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

export function createKeyStore(options: KeyStoreOptions): KeyStore {
  const ctx = createKeyStoreContext(options);
  const { dir, index, cache, throttle, queue, locks, passes } = ctx;
  const writes = createKeyWrites(ctx);
  const { verifyPassphrase, checkedKey, current } = createKeyChecks(ctx, writes);
  let opening: Promise<void> | undefined;

  /** Whether the store holds `address`, without reading its file (has, isLocked). */
  async function holds(address: string): Promise<boolean> {
    const wanted = normalizeAddress(address);
    if (await index.holds(wanted)) return true;
    return passes.building() && (await ctx.lookup(wanted)) !== undefined;
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
    return Promise.all(held.map(async (h, i) => h || (await ctx.lookup(wanted[i]!)) !== undefined));
  }

  return {
    open() {
      if (ctx.isOpen()) return Promise.resolve();
      opening ??= (async () => {
        try {
          await mkdir(dir, { recursive: true, mode: 0o700 });
          // A corrupt lock state fails the open before anything else (INVALID_LOCK_STATE).
          await readLockState(dir);
          await locks.load();
          await migrateLockState(dir, locks);
          const { needsScan } = await index.open();
          const session = ctx.opened();
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
      if (!ctx.isOpen()) return;
      ctx.closed();
      await passes.built();
      passes.reset();
      cache.clear();
      throttle.clear();
      ctx.changed();
      // Writes in flight finish before the index closes (each holds the directory queue).
      await queue.runExclusive(DIRECTORY, () => index.close());
    },

    async page(after, max) {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, async () => {
        const addresses = await index.page(after, max);
        if (addresses === undefined) throw unknownWallet(String(after), '', 'after');
        return addresses;
      });
    },

    count() {
      ctx.ensureOpen();
      return index.walletCount();
    },

    async has(address) {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, () => holds(address));
    },

    async hasMany(addresses) {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, () => holdsMany(addresses));
    },

    indexing() {
      return ctx.isOpen() ? passes.progress() : null;
    },

    indexed() {
      return passes.built();
    },

    async indexBytes() {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, () => index.approximateSize());
    },

    async create(passphrase) {
      const privateKey = randomPrivateKey();
      try {
        const started = ctx.ensureOpen();
        return (await ctx.inSession(started, () => writes.addKey(privateKey, passphrase))).address;
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
      const started = ctx.ensureOpen();
      return ctx.inSession(started, () =>
        writes.addKey(privateKey, passphrase, importOptions.existing),
      );
    },

    async getPrivateKey(address, passphrase, caller: Caller = {}) {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, async () => {
        const client = clientOf(caller.client);
        // A locked wallet is refused before any passphrase check: no guessing against it either.
        const known = await current(normalizeAddress(address), client, async (listed) => {
          if (ctx.isEntryLocked(listed)) throw walletLocked(listed);
        });
        const { entry, privateKey } = await checkedKey(address, passphrase, client, {
          entry: known,
        });
        // lock() may have run while scrypt did.
        if (ctx.isEntryLocked(entry)) {
          privateKey.fill(0);
          throw walletLocked(entry);
        }
        ctx.ensureSession(started, privateKey);
        return privateKey;
      });
    },

    revision() {
      return ctx.revision();
    },

    async isLocked(address) {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, async () => {
        const wanted = normalizeAddress(address);
        return isLockable(wanted) && locks.isLocked(wanted) && holds(wanted);
      });
    },

    async lock(address) {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, async () => {
        const wanted = normalizeAddress(address);
        if (!isLockable(wanted) || !(await holdsToLock(wanted))) return false;
        // By address: the key's identity is not looked up (no read of the index).
        cache.forgetWallet(wanted);
        if (await locks.setLocked(wanted, true)) ctx.changed();
        return true;
      });
    },

    async unlock(address, passphrase, caller: Caller = {}) {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, async () => {
        const { entry, privateKey } = await checkedKey(
          address,
          passphrase,
          clientOf(caller.client),
        );
        try {
          ctx.ensureSession(started);
          cache.remember(entry, privateKey, passphrase);
          if (entry.address !== null && (await locks.setLocked(entry.address, false))) {
            ctx.changed();
          }
          return true;
        } finally {
          privateKey.fill(0);
        }
      });
    },

    async refresh() {
      const started = ctx.ensureOpen();
      return ctx.inSession(started, async () => {
        // A build under way is such a scan already: its end is the refresh's start.
        await passes.built();
        ctx.ensureSession(started);
        const { added, removed } = await passes.scan(started, false);
        ctx.ensureSession(started);
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
      const started = ctx.ensureOpen();
      return ctx.inSession(started, async () => {
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
            writes.resolveEntry(entry, getPublicKey(privateKey)),
          );
          if (resolved === null || resolved.address === null) {
            throw fileChanged(entry, 'ethAddress');
          }
          if (ctx.isEntryLocked(resolved)) cache.forget(resolved.id);
          return resolved.address;
        } finally {
          privateKey.fill(0);
        }
      });
    },

    unresolved() {
      ctx.ensureOpen();
      return index.unresolved();
    },

    async walletOfEthereumAddress(ethAddress) {
      ctx.ensureOpen();
      const id = normalizeEthereumAddress(ethAddress);
      return id === null ? undefined : (await index.byId(id))?.address;
    },

    invalidFiles() {
      ctx.ensureOpen();
      return index.invalid();
    },
  };
}
