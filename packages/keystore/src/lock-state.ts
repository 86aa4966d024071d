import { mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory, writeFileAtomic } from './atomic-file';
import { KeyStoreError } from './errors';
import { normalizeAddress } from './wallet-address';

/** Hidden, so directory scans (ours and other tools') never take it for a key file. */
export const LOCK_STATE_FILE = '.lock-state.json';

/**
 * The locks of lockWallet (issue 40): one empty file per locked wallet, `<dir>/.locks/<address>`.
 * A lock or unlock is one file created or removed (and the directory synced), whatever the number
 * of wallets, where the one JSON file of before was rewritten whole each time; a backup that
 * copies the key directory copies them, and they need neither the index nor its lock to be read.
 */
export const LOCKS_DIR = '.locks';

export interface WalletLocks {
  /** Reads which wallets are locked from `.locks` (at the store's open: the files are the truth). */
  load(): Promise<void>;
  /** From memory: asked on every signature, where a file check cost two system calls. */
  isLocked(address: string): boolean;
  /** Whether the state changed. Durable (the directory synced) when it returns. */
  setLocked(address: string, locked: boolean): Promise<boolean>;
}

/** Whether `address` can name a lock file: a chain address is letters and digits only. */
export function isLockable(address: string): boolean {
  return /^[A-Za-z0-9]+$/.test(address);
}

/**
 * `address` must be a normalised chain address of the store (isLockable). The store holds its
 * directory alone while open (its index's LevelDB lock), so after load() the locked set in memory
 * changes only by setLocked, which changes the file first.
 */
export function createWalletLocks(dir: string): WalletLocks {
  const locksDir = join(dir, LOCKS_DIR);
  let locked = new Set<string>();
  const pathOf = (address: string) => {
    if (!isLockable(address)) throw new RangeError('not a chain address');
    return join(locksDir, address);
  };
  return {
    async load() {
      let names: string[];
      try {
        names = await readdir(locksDir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        names = [];
      }
      locked = new Set(names.filter(isLockable));
    },
    isLocked(address) {
      return locked.has(address);
    },
    async setLocked(address, lock) {
      const path = pathOf(address);
      if (lock) {
        await mkdir(locksDir, { recursive: true, mode: 0o700 });
        try {
          await (await open(path, 'wx', 0o600)).close();
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          locked.add(address);
          return false;
        }
        locked.add(address);
      } else {
        try {
          await rm(path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          locked.delete(address);
          return false;
        }
        locked.delete(address);
      }
      await syncDirectory(locksDir);
      return true;
    },
  };
}

/** Moves the locks of a lock-state file of before into `.locks`, then removes the file. */
export async function migrateLockState(dir: string, locks: WalletLocks): Promise<void> {
  const locked = await readLockState(dir);
  if (locked === null) return;
  for (const address of locked) await locks.setLocked(normalizeAddress(address), true);
  await removeLockState(dir);
}

const LOCK_STATE_VERSION = 1;

/**
 * The addresses locked by lockWallet in a store of before the index (issue 40), which now keeps
 * the locks: read once at open, written into the index, then removed. null when there is none; an
 * unreadable one fails (INVALID_LOCK_STATE) rather than silently unlocking wallets the operator
 * locked.
 */
export async function readLockState(dir: string): Promise<Set<string> | null> {
  let text: string;
  try {
    text = await readFile(join(dir, LOCK_STATE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    state = undefined;
  }
  const locked = (state as { version?: unknown; locked?: unknown } | undefined)?.locked;
  if (
    (state as { version?: unknown } | undefined)?.version !== LOCK_STATE_VERSION ||
    !Array.isArray(locked) ||
    !locked.every((address) => typeof address === 'string')
  ) {
    throw new KeyStoreError(
      'INVALID_LOCK_STATE',
      `lock state file ${join(dir, LOCK_STATE_FILE)} is corrupt: fix or delete it (deleting it unlocks every wallet)`,
    );
  }
  return new Set(locked as string[]);
}

/** Once its locks are in the index (written durably). */
export function removeLockState(dir: string): Promise<void> {
  return rm(join(dir, LOCK_STATE_FILE), { force: true });
}

/** A lock-state file as a store of before the index wrote it (tests of the migration). */
export function writeLockState(dir: string, locked: ReadonlySet<string>): Promise<void> {
  const state = { version: LOCK_STATE_VERSION, locked: [...locked].sort() };
  return writeFileAtomic(dir, LOCK_STATE_FILE, `${JSON.stringify(state, null, 2)}\n`);
}
