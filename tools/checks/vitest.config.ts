import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The check is a plain script at the project root; its tests sit beside it. Each test runs the
// check, which asks Nx for the project graph: seconds on a busy 2-core CI machine.
export default mergeConfig(
  shared,
  defineConfig({ test: { include: ['*.test.ts'], testTimeout: 60_000 } }),
);
