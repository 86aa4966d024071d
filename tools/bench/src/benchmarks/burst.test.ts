import { describe, expect, it } from 'vitest';
import { BURST_BLOCK_TIME_MS, drainRate, intakeByFill } from './burst.js';

describe('burst figures', () => {
  it('intake: 1-s intervals without refusals, by how full the pool was at their start', () => {
    const samples = [
      { atMs: 0, pending: 0, succeeded: 0, refused: 0 }, // empty: 2,000/s next
      { atMs: 1_000, pending: 500, succeeded: 2_000, refused: 0 }, // empty: 2,000/s next
      { atMs: 2_000, pending: 2_000, succeeded: 4_000, refused: 0 }, // between: not counted
      { atMs: 3_000, pending: 3_500, succeeded: 5_000, refused: 0 }, // refusals next: not counted
      { atMs: 4_000, pending: 4_000, succeeded: 5_500, refused: 10 }, // full: 1,000/s next
      { atMs: 5_000, pending: 3_900, succeeded: 6_500, refused: 10 },
    ];
    expect(intakeByFill(samples)).toEqual({ empty: 2_000, full: 1_000 });
    expect(intakeByFill(samples.slice(0, 2)).full).toBeNaN();
  });

  it('drain: what was pending at the end over the time the blocks took, against blocks on time', () => {
    const interval = BURST_BLOCK_TIME_MS;
    // Heights as the poll first saw them: block 10 before the end, 11 and 12 drained 15,000.
    const heights = new Map([
      [10, 1_000],
      [11, 1_000 + interval],
      [12, 1_000 + 2.5 * interval],
    ]);
    const drain = drainRate({
      heights,
      endedAtMs: 2_000,
      drainedAtMs: 1_000 + 2.5 * interval,
      pendingAtEnd: 15_000,
    });
    expect(drain.blocks).toBe(2);
    expect(drain.value).toBeCloseTo(15_000 / ((2.5 * interval) / 1000), 6);
    expect(drain.ceiling).toBeCloseTo(15_000 / ((2 * interval) / 1000), 6);
  });
});
