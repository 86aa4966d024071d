import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The check is a plain script at the project root; its tests sit beside it.
export default mergeConfig(shared, defineConfig({ test: { include: ['*.test.ts'] } }));
