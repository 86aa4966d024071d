import { defineConfig } from 'tsup';

export default defineConfig({
  // `codec`: the operation byte layouts alone (`@chain/tokens/codec`: no state, browser-safe).
  entry: ['src/index.ts', 'src/codec.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
