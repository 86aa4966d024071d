import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// npm pack, a local registry, npm installs from it and a node: one file, generous hook timeout.
export default mergeConfig(
  shared,
  defineConfig({ test: { testTimeout: 60_000, hookTimeout: 120_000, fileParallelism: false } }),
);
