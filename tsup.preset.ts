/**
 * The one tsup build of the workspace's packages: ESM with declarations and source maps, a clean
 * dist/ each time. A package's tsup.config.ts gives its entries (the names of its dist files, the
 * `exports` of its package.json) and, only where it differs, what it changes.
 */
import { defineConfig, type Options } from 'tsup';

/** Node 20 for the node-side packages; browser-safe ones (crypto, offline, the SDK) ask for es2022. */
export function packageBuild(entry: NonNullable<Options['entry']>, overrides: Options = {}) {
  return defineConfig({
    entry,
    format: ['esm'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    ...overrides,
  });
}
