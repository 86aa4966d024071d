import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GC_TRACE_FLAG, GcTally, gcPerOperation } from './gc-trace';

describe('GcTally', () => {
  it("adds up the collections of a real node's trace and keeps its other output", () => {
    // About 64 MB of short-lived objects, then a line of the program's own.
    const program =
      'let kept = 0; for (let i = 0; i < 2e6; i++) { const o = { i, s: "x".repeat(8) }; kept ^= o.i; } process.stdout.write("done " + kept + "\\n");';
    const run = spawnSync(process.execPath, [GC_TRACE_FLAG, '-e', program], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    const tally = new GcTally();
    // Fed in uneven pieces, as a pipe delivers it: lines split across chunks still count once.
    let kept = '';
    for (let at = 0; at < run.stdout.length; at += 777)
      kept += tally.feed(run.stdout.slice(at, at + 777));
    kept += tally.feed('\n');
    const totals = tally.totals();
    expect(totals.collections).toBe(
      run.stdout.split('\n').filter((l) => l.includes(' pause=')).length,
    );
    expect(totals.collections).toBeGreaterThan(0);
    expect(totals.allocatedBytes).toBeGreaterThan(16 * 1024 * 1024);
    expect(totals.pauseMs).toBeGreaterThan(0);
    expect(kept).toMatch(/^done \d+\n/m);
    expect(kept).not.toContain('pause=');
  });

  it('gives allocation and pause per operation between two readings', () => {
    const before = { allocatedBytes: 1024, pauseMs: 1, collections: 1 };
    const after = { allocatedBytes: 1024 + 10 * 2048, pauseMs: 1.5, collections: 3 };
    expect(gcPerOperation(before, after, 10)).toBe(
      '2.0 KB allocated and 50.0 us of GC pause per operation',
    );
    expect(gcPerOperation(undefined, after, 10)).toBe('GC not traced');
  });
});
