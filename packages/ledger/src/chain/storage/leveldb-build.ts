import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Which LevelDB classic-level loads: the one `scripts/build-leveldb.mjs` built without seek
 * compactions (node-gyp-build prefers `build/Release` to the prebuilt binaries), or the prebuilt
 * one, which compacts for random reads of a large state (docs/decisions.md).
 */
export interface LevelDbBuild {
  readonly seekCompactions: boolean;
  /** The classic-level the node loads. */
  readonly classicLevelDir: string;
  /** The command that builds it without seek compactions (needs a C++ compiler and Python). */
  readonly buildCommand: string;
}

/**
 * Written beside the binary by scripts/build-leveldb.mjs once its build succeeded (a failed one
 * leaves no build directory): its presence is what says the binary is that build.
 */
const MARKER = 'chain-node-leveldb.json';

export function levelDbBuild(): LevelDbBuild {
  const require = createRequire(import.meta.url);
  const classicLevelDir = dirname(require.resolve('classic-level/package.json'));
  const release = join(classicLevelDir, 'build', 'Release');
  const ledgerDir = dirname(require.resolve('@chain/ledger/package.json'));
  return {
    seekCompactions: !(
      existsSync(join(release, 'classic_level.node')) && existsSync(join(release, MARKER))
    ),
    classicLevelDir,
    buildCommand: `node ${join(ledgerDir, 'scripts', 'build-leveldb.mjs')}`,
  };
}
