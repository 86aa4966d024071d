import { defineConfig } from 'tsup';

// The catalogue is bundled in, so the published SDK has no runtime dependencies and runs in browsers.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: { resolve: ['@chain/rpc-jayson'] },
  noExternal: ['@chain/rpc-jayson'],
  clean: true,
  sourcemap: true,
  target: 'es2022',
  esbuildOptions(options) {
    options.conditions = ['@chain/source'];
  },
});
