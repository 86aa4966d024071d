import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', catalogue: 'src/catalogue/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
