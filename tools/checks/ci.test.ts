import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// CI, a local `.ci/run` and the README's test command must stay one and the same.
const WORKSPACE = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(WORKSPACE, file), 'utf8');

/** The commands a bash script runs, comments, blank lines, `set`, `cd` and `echo` left out. */
function commands(script: string): string[] {
  return script
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .filter((line) => !/^(set|cd|echo)\s/.test(line));
}

describe('CI', () => {
  it('.ci/run is an executable strict bash script running the README test command, then the network lab', () => {
    const script = read('.ci/run');
    const readmeCommand = /^npm ci && npm test\b/m.exec(read('README.md'));

    expect(readmeCommand).not.toBeNull();
    expect(script.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(script).toMatch(/^set -euo pipefail$/m);
    // Before them only the browser for the explorer test, installed best effort: a failed install
    // must not stop the run (the browser test then skips); after them the network lab.
    const run = commands(script);
    expect(run.slice(-3)).toEqual(['npm ci', 'npm test', 'bash .ci/netlab']);
    for (const line of run.slice(0, -3)) {
      expect(line).toMatch(/^as_root=|apt-get install -y chromium; } \|\| echo /);
    }
    expect(() => accessSync(join(WORKSPACE, '.ci', 'run'), constants.X_OK)).not.toThrow();
  });

  it('the GitHub workflow runs .ci/run on Node 20', () => {
    const workflow = read('.github/workflows/ci.yml');

    expect(workflow).toMatch(/runs-on: ubuntu-latest/);
    expect(workflow).toMatch(/node-version: 20\b/);
    expect(workflow).toMatch(/^\s+- run: bash \.ci\/run$/m);
  });
});
