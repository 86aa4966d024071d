import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '@chain/crypto';
import { ClassicLevel } from 'classic-level';
import { StoreError } from '../../errors';
import { CHAIN_DB_OPTIONS, ChainStore } from './store';

/** Bytes written to the copy per batch: large enough to be fast, small enough for little memory. */
const COPY_BATCH_BYTES = 4 * 1024 * 1024;

export interface ChainStoreCopy {
  /** Key-value entries copied (blocks, state, indexes, undo data, journal, meta). */
  entries: number;
  bytes: number;
}

/**
 * Copies the chain database of `dataDir` (`<dataDir>/chain`) to `<targetDir>/chain`, entry by entry
 * from one LevelDB iterator: an iterator reads from an implicit snapshot, so the copy is the
 * database at one instant, as a crash there would have left it, which the chain's boot accepts
 * (head record and state checksum, journal replay). Holds the data directory's lock meanwhile (a
 * node cannot start on it); DATADIR_IN_USE while a node runs there. The target must not hold a
 * chain database already.
 */
export async function copyChainStore(dataDir: string, targetDir: string): Promise<ChainStoreCopy> {
  const source = await ChainStore.open(dataDir);
  try {
    await mkdir(targetDir, { recursive: true, mode: 0o700 });
    const target = new ClassicLevel<Uint8Array, Uint8Array>(join(targetDir, 'chain'), {
      ...CHAIN_DB_OPTIONS,
      errorIfExists: true,
    });
    try {
      await target.open();
    } catch (error) {
      throw new StoreError(
        ErrorCode.NOT_ALLOWED,
        'DATADIR_UNUSABLE',
        `cannot create the chain database in ${targetDir}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    try {
      return await copyEntries(source.db, target);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copyEntries(
  from: ClassicLevel<Uint8Array, Uint8Array>,
  to: ClassicLevel<Uint8Array, Uint8Array>,
): Promise<ChainStoreCopy> {
  let entries = 0;
  let bytes = 0;
  let batch = to.batch();
  let batchBytes = 0;
  for await (const [key, value] of from.iterator()) {
    batch.put(key, value);
    entries++;
    batchBytes += key.length + value.length;
    if (batchBytes >= COPY_BATCH_BYTES) {
      await batch.write();
      bytes += batchBytes;
      batch = to.batch();
      batchBytes = 0;
    }
  }
  await batch.write({ sync: true });
  bytes += batchBytes;
  return { entries, bytes };
}
