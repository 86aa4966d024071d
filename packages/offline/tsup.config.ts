import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  // Browsers and the SDK bundle this package: nothing here may need Node.
  target: 'es2022',
});
