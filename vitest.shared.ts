import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources in tests (the "@chain/source" export
// condition), so a package's tests never run against a stale build of its dependencies.
export default defineConfig({
  resolve: { conditions: ['@chain/source', 'import', 'module', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@chain/source', 'import', 'node', 'default'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: [fileURLToPath(new URL('./vitest.tmpdir.ts', import.meta.url))],
  },
});
