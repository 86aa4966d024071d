/**
 * The one tsup build of the workspace's packages: ESM and CommonJS, each with its declarations
 * (`.d.ts` beside `.js`, `.d.cts` beside `.cjs`) and source maps, a clean dist/ each time. A
 * package's tsup.config.ts gives its entries (the names of its dist files, the `exports` of its
 * package.json) and, only where it differs, what it changes.
 *
 * Both formats because users' projects are both: a TypeScript project compiled to CommonJS
 * `require`s a package, and an ESM-only package fails there at run time (ERR_PACKAGE_PATH_NOT_EXPORTED)
 * after compiling cleanly. `shims` gives the CommonJS build an `import.meta.url` (createRequire of
 * the native binding, the worker sources) from `__filename`.
 */
import { defineConfig, type Options } from 'tsup';

/** The formats of a published library package (chain-node, a command, builds ESM only). */
export const LIBRARY_FORMATS: NonNullable<Options['format']> = ['esm', 'cjs'];

/** Node 20 for the node-side packages; browser-safe ones (crypto, offline, the SDK) ask for es2022. */
export function packageOptions(
  entry: NonNullable<Options['entry']>,
  overrides: Options = {},
): Options {
  return {
    entry,
    format: LIBRARY_FORMATS,
    dts: true,
    clean: true,
    sourcemap: true,
    shims: true,
    target: 'node20',
    ...overrides,
  };
}

/** A package's whole tsup config: its one build. */
export function packageBuild(entry: NonNullable<Options['entry']>, overrides: Options = {}) {
  return defineConfig(packageOptions(entry, overrides));
}
