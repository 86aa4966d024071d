import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest's global setup for every package: the run's temporary files (data directories, key
 * stores, logs, of the tests and of the nodes they start) go under one directory of their own,
 * removed when the run ends, including what a test that failed or timed out left behind.
 * `os.tmpdir()` follows TMPDIR, which the test workers and their child processes inherit.
 */
export default function setup(): () => void {
  const outer = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'chain-test-run-'));
  process.env.TMPDIR = dir;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      // A mount a test left (the disk-full test's) keeps its directory: say so, fail nothing.
      process.stderr.write(`could not remove ${dir}: ${(error as Error).message}\n`);
    }
  };
}
