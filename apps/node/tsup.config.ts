import { defineConfig, type Options } from 'tsup';
import { packageOptions } from '../../tsup.preset';

/**
 * The explorer page's script: the browser modules of src/explorer/browser bundled into one classic
 * script, dist/explorer/app.js, with the SDK (@chain/rpc-client, read from its sources) inlined, so
 * the page loads nothing but that file. The node serves it (src/explorer/serve.ts).
 */
export const EXPLORER_BUNDLE: Options = {
  entry: { app: 'src/explorer/browser/main.ts' },
  outDir: 'dist/explorer',
  format: ['iife'],
  platform: 'browser',
  target: 'es2022',
  minify: true,
  dts: false,
  clean: false,
  sourcemap: false,
  noExternal: [/^@chain\//],
  outExtension: () => ({ js: '.js' }),
  esbuildOptions(options) {
    options.conditions = ['@chain/source'];
  },
};

export default defineConfig([
  // The explorer bundle is built beside this one at the same time: its clean leaves it alone.
  // The SDK, which `chain-node call` talks through, is bundled in (a devDependency, as for the page).
  // ESM only: a command (its launcher awaits at top level), not a library to `require`.
  packageOptions(['src/index.ts', 'src/cli.ts', 'src/launcher.ts'], {
    format: ['esm'],
    clean: ['!explorer/**'],
    noExternal: ['@chain/rpc-client'],
  }),
  EXPLORER_BUNDLE,
]);
