import { defineConfig } from 'tsup';

export default defineConfig({
  // `testing`: the test helpers of `@chain/ledger/testing` (a temp chain, deterministic wallets).
  // `codec`: the operation wire format alone (`@chain/ledger/codec`: no LevelDB, browser-safe).
  entry: { index: 'src/index.ts', codec: 'src/codec/index.ts', testing: 'src/testing/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
