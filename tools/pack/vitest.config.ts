import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// npm pack, a local registry, npm installs from it and a node: one file, generous timeouts (about
// a minute in all on an idle machine; tsc and npm slow down many times on a loaded one).
export default mergeConfig(
  shared,
  defineConfig({ test: { testTimeout: 180_000, hookTimeout: 300_000, fileParallelism: false } }),
);
