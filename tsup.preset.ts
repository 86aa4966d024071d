/**
 * The one tsup build of the workspace's packages: ESM with declarations and source maps, a clean
 * dist/ each time. A package's tsup.config.ts gives its entries (the names of its dist files, the
 * `exports` of its package.json) and, only where it differs, what it changes.
 */
import { defineConfig, type Options } from 'tsup';

/** Node 20 for the node-side packages; browser-safe ones (crypto, offline, the SDK) ask for es2022. */
export function packageOptions(
  entry: NonNullable<Options['entry']>,
  overrides: Options = {},
): Options {
  return {
    entry,
    format: ['esm'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    ...overrides,
  };
}

/** A package's whole tsup config: its one build. */
export function packageBuild(entry: NonNullable<Options['entry']>, overrides: Options = {}) {
  return defineConfig(packageOptions(entry, overrides));
}
