import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Load tests fork processes that each want a core: run the files one at a time.
export default mergeConfig(shared, defineConfig({ test: { fileParallelism: false } }));
