import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file';
import { KeyStoreError } from './errors';

/** Hidden, so directory scans (ours and other tools') never take it for a key file. */
export const LOCK_STATE_FILE = '.lock-state.json';

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
