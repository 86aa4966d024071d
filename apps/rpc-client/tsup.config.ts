import { packageBuild } from '../../tsup.preset';

// The wire contract (@chain/spec: catalogue, result types, error codes) and the offline signer
// (@chain/offline with the codecs and crypto it reaches) are bundled in, so the published SDK has no
// runtime dependencies and runs in browsers.
// Both bundles read the TypeScript sources: esbuild through the "@chain/source" condition, the
// declaration bundle through `paths` (a mapped path is inlined, whereas a package import would stay
// an import of @chain/spec, which the published package does not depend on).
export default packageBuild(['src/index.ts'], {
  dts: {
    compilerOptions: {
      paths: {
        '@chain/spec': ['../../packages/spec/src/index.ts'],
        '@chain/offline': ['../../packages/offline/src/index.ts'],
        '@chain/crypto': ['../../packages/crypto/src/index.ts'],
        '@chain/ophash': ['../../packages/ophash/src/index.ts'],
        '@chain/ledger/codec': ['../../packages/ledger/src/codec/index.ts'],
        '@chain/tokens/codec': ['../../packages/tokens/src/codec.ts'],
        '@chain/tiers/codec': ['../../packages/tiers/src/codec.ts'],
      },
    },
  },
  noExternal: [/^@chain\//, /^@noble\//],
  target: 'es2022',
  esbuildOptions(options) {
    options.conditions = ['@chain/source'];
  },
});
