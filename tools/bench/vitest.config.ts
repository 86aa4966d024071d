import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Load tests fork processes that each want a core: run the files one at a time. They start real
// nodes, which take seconds beside another project's tests on a 2-core CI machine.
export default mergeConfig(
  shared,
  defineConfig({ test: { fileParallelism: false, testTimeout: 60_000 } }),
);
