import { defineConfig } from 'tsup';

export default defineConfig({
  // `testing`: the test helpers of `@chain/ledger/testing` (a temp chain, deterministic wallets).
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
