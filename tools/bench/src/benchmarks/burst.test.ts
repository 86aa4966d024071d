import { describe, expect, it } from 'vitest';
import { BURST_BLOCK_TIME_MS, drainRate, intakeByFill, slowPollsByBlock } from './burst.js';

describe('burst figures', () => {
  it('slow polls: those answered in the 2 s before a new block apart from the others', () => {
    const heights = new Map([
      [10, 5_000],
      [11, 10_000],
    ]);
    const polls = [
      { atMs: 1_000, ms: 30 }, // 4 s before block 10: elsewhere, slow
      { atMs: 3_500, ms: 50 }, // 1.5 s before it: near, slow
      { atMs: 5_000, ms: 5 }, // the poll that saw it: near
      { atMs: 7_000, ms: 2 }, // elsewhere
      { atMs: 12_000, ms: 40 }, // after the last block: elsewhere, slow
    ];
    expect(slowPollsByBlock(polls, heights, 20)).toEqual({
      nearBlock: { polls: 2, slow: 1 },
      elsewhere: { polls: 3, slow: 2 },
    });
  });

  it('intake: acknowledged over the time of the intervals without refusals, by how full the pool was', () => {
    const samples = [
      { atMs: 0, pending: 0, succeeded: 0, refused: 0 }, // empty: 400 in 200 ms next
      { atMs: 200, pending: 400, succeeded: 400, refused: 0 }, // empty: 200 in 300 ms next
      { atMs: 500, pending: 2_000, succeeded: 600, refused: 0 }, // between: not counted
      { atMs: 700, pending: 3_700, succeeded: 900, refused: 0 }, // full, but refusals next
      { atMs: 900, pending: 4_000, succeeded: 1_000, refused: 10 }, // full: 100 in 200 ms next
      { atMs: 1_100, pending: 3_900, succeeded: 1_100, refused: 10 }, // full: 0 in 100 ms next
      { atMs: 1_200, pending: 3_800, succeeded: 1_100, refused: 10 },
    ];
    expect(intakeByFill(samples)).toEqual({
      empty: { perSec: 1_200, intervals: 2, seconds: 0.5 },
      full: { perSec: 1_000 / 3, intervals: 2, seconds: 0.3 },
    });
    expect(intakeByFill(samples.slice(0, 2)).full.perSec).toBeNaN();
  });

  it('drain: what the blocks after the end took over the time they took, against blocks on time', () => {
    const interval = BURST_BLOCK_TIME_MS;
    // Heights as the poll first saw them: block 10 before the end, 11 to 13 drained 20,961 (the
    // pool's last sample before the end may have said 19,599: three blocks are needed, not two).
    const heights = new Map([
      [10, 1_000],
      [11, 1_000 + interval],
      [12, 1_000 + 2 * interval],
      [13, 1_000 + 3.2 * interval],
    ]);
    const drain = drainRate({
      heights,
      endedAtMs: 2_000,
      blocks: [
        { height: 11, operations: 10_000 },
        { height: 12, operations: 10_000 },
        { height: 13, operations: 961 },
      ],
    });
    expect(drain).toMatchObject({ drained: 20_961, blocks: 3, full: 2 });
    expect(drain.operations).toEqual([10_000, 10_000, 961]);
    expect(drain.intervalsSec).toEqual([interval / 1000, interval / 1000, (1.2 * interval) / 1000]);
    expect(drain.value).toBeCloseTo(20_961 / ((3.2 * interval) / 1000), 6);
    expect(drain.ceiling).toBeCloseTo(20_961 / ((3 * interval) / 1000), 6);
    // A block short of full while the pool still held more: counted apart.
    const short = drainRate({
      heights,
      endedAtMs: 2_000,
      blocks: [
        { height: 11, operations: 7_000 },
        { height: 12, operations: 10_000 },
        { height: 13, operations: 961 },
      ],
    });
    expect(short.full).toBe(1);
  });
});
