import { defineConfig } from 'tsup';

export default defineConfig({
  // `testing`: the hand-driven hostile peer of `@chain/p2p-libp2p/testing` (the network lab's).
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
