/**
 * The ceiling for anything the node writes: classic-level (the node's LevelDB binding, loaded the
 * way @chain/ledger loads it) writing chained batches with `sync: true`, as the node writes blocks
 * and journal groups, into a fresh database in a temporary directory.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface ChainedBatch {
  put(key: Uint8Array, value: Uint8Array): ChainedBatch;
  write(options: { sync: boolean }): Promise<void>;
}

interface Database {
  open(): Promise<void>;
  close(): Promise<void>;
  batch(): ChainedBatch;
}

type ClassicLevelConstructor = new (
  location: string,
  options: { keyEncoding: 'view'; valueEncoding: 'view' },
) => Database;

function loadClassicLevel(): ClassicLevelConstructor {
  const require = createRequire(import.meta.url);
  const ledgerManifest = require.resolve('@chain/ledger/package.json');
  return (
    createRequire(ledgerManifest)('classic-level') as { ClassicLevel: ClassicLevelConstructor }
  ).ClassicLevel;
}

export interface LevelWriteRate {
  putsPerSec: number;
  batchesPerSec: number;
  puts: number;
  seconds: number;
}

/**
 * Writes batches of `putsPerBatch` puts (random 8-byte keys, `valueBytes`-byte values) with
 * `sync: true`, one after another, for at least `minMs`.
 */
export async function measureSyncedBatchWrites(options: {
  putsPerBatch: number;
  valueBytes: number;
  minMs: number;
}): Promise<LevelWriteRate> {
  const ClassicLevel = loadClassicLevel();
  const dir = await mkdtemp(join(tmpdir(), 'chain-bench-leveldb-'));
  const db = new ClassicLevel(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  try {
    // Keys and values are made beforehand so only the writes are timed.
    const values = Array.from({ length: 64 }, () => randomBytes(options.valueBytes));
    const keys = Array.from({ length: options.putsPerBatch * 16 }, () => randomBytes(8));
    let puts = 0;
    let batches = 0;
    const started = performance.now();
    let elapsed = 0;
    do {
      const batch = db.batch();
      for (let i = 0; i < options.putsPerBatch; i++) {
        batch.put(keys[(puts + i) % keys.length]!, values[(puts + i) % values.length]!);
      }
      await batch.write({ sync: true });
      puts += options.putsPerBatch;
      batches++;
      elapsed = performance.now() - started;
    } while (elapsed < options.minMs);
    const seconds = elapsed / 1000;
    return { putsPerSec: puts / seconds, batchesPerSec: batches / seconds, puts, seconds };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
