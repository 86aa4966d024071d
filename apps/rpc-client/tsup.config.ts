import { defineConfig } from 'tsup';

// The catalogue is bundled in, so the published SDK has no runtime dependencies and runs in browsers.
// Both bundles read the catalogue's TypeScript sources: esbuild through the "@chain/source"
// condition, the declaration bundle through `paths` (a mapped path is inlined, whereas a package
// import would stay an import of @chain/rpc-jayson, which the published package does not depend on).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: {
    compilerOptions: {
      paths: {
        '@chain/rpc-jayson/catalogue': ['../../packages/rpc-jayson/src/catalogue/index.ts'],
      },
    },
  },
  noExternal: [/^@chain\/rpc-jayson(\/|$)/],
  clean: true,
  sourcemap: true,
  target: 'es2022',
  esbuildOptions(options) {
    options.conditions = ['@chain/source'];
  },
});
