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

/**
 * What the command's build carries inside it instead of loading at run time:
 * the SDK (a devDependency, as for the page), the RPC server with jayson, and the peer-to-peer side
 * with the whole libp2p stack it imports (about 650 of the 860 files a start loaded one by one, each resolved through its
 * package.json: 3 times as long to load as the same code in one file; docs/performance.md, "The
 * process's own start"). The other workspace packages stay imported (one copy of each class for
 * whoever shares them: errors, the chain), and so do the native bindings.
 */
export const COMMAND_BUNDLED = ['@chain/rpc-client', '@chain/p2p-libp2p', '@chain/rpc-jayson'];

export default defineConfig([
  // The explorer bundle is built beside this one at the same time: its clean leaves it alone.
  // ESM only: a command (its launcher awaits at top level), not a library to `require`.
  packageOptions(['src/index.ts', 'src/cli.ts', 'src/launcher.ts'], {
    format: ['esm'],
    clean: ['!explorer/**'],
    noExternal: COMMAND_BUNDLED,
    // Bundled CommonJS modules require Node's built-ins: ESM has no `require` of its own.
    banner: {
      js: "import { createRequire as __chainNodeRequire } from 'node:module'; const require = __chainNodeRequire(import.meta.url);",
    },
  }),
  EXPLORER_BUNDLE,
]);
