import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Which LevelDB classic-level loads: the one `scripts/build-leveldb.mjs` built without seek
 * compactions and mapped table files (node-gyp-build prefers `build/Release` to the prebuilt
 * binaries), or the prebuilt one, which compacts for random reads of a large state and maps up to
 * 1000 table files into the process (docs/decisions.md).
 */
export interface LevelDbBuild {
  readonly seekCompactions: boolean;
  /**
   * Table files mapped into the process: the pages reads touch count in its RSS (RssFile). True of
   * the prebuilt binary and of a build made before the script stopped mapping them.
   */
  readonly mapsTableFiles: boolean;
  /**
   * A written chained batch's native contents freed at once. False of the prebuilt binary, which
   * frees them when V8 collects the batch: written batches then wait in malloc's heap.
   */
  readonly freesWrittenBatches: boolean;
  /**
   * An empty key or value's copy freed after use. False of the prebuilt binary, which loses 32
   * bytes of malloc's heap for each empty value put: the history index puts two for each transfer.
   */
  readonly freesEmptyValues: boolean;
  /** The classic-level the node loads. */
  readonly classicLevelDir: string;
  /** The command that builds it without seek compactions (needs a C++ compiler and Python). */
  readonly buildCommand: string;
}

/**
 * Written beside the binary by scripts/build-leveldb.mjs once its build succeeded (a failed one
 * leaves no build directory): its presence is what says the binary is that build, its `changes`
 * which changes it carries (a build before the second one wrote `change: 'no seek compactions'`).
 */
const MARKER = 'chain-node-leveldb.json';
const NO_MAPPED_TABLES = 'no mapped table files';
const BATCHES_FREED = 'written batches freed at once';
const EMPTY_VALUES_FREED = 'empty values freed';

function markerChanges(path: string): readonly string[] | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const marker = JSON.parse(readFileSync(path, 'utf8')) as {
      changes?: unknown;
      change?: unknown;
    };
    if (Array.isArray(marker.changes)) return marker.changes.map(String);
    return typeof marker.change === 'string' ? [marker.change] : [];
  } catch {
    return [];
  }
}

export function levelDbBuild(): LevelDbBuild {
  const require = createRequire(import.meta.url);
  const classicLevelDir = dirname(require.resolve('classic-level/package.json'));
  const release = join(classicLevelDir, 'build', 'Release');
  const ledgerDir = dirname(require.resolve('@chain/ledger/package.json'));
  const changes = existsSync(join(release, 'classic_level.node'))
    ? markerChanges(join(release, MARKER))
    : undefined;
  return {
    seekCompactions: changes === undefined,
    mapsTableFiles: !(changes?.includes(NO_MAPPED_TABLES) ?? false),
    freesWrittenBatches: changes?.includes(BATCHES_FREED) ?? false,
    freesEmptyValues: changes?.includes(EMPTY_VALUES_FREED) ?? false,
    classicLevelDir,
    buildCommand: `node ${join(ledgerDir, 'scripts', 'build-leveldb.mjs')}`,
  };
}
