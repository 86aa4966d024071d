import { describe, expect, it } from 'vitest';
import { syncProgressReport } from './sync-progress-log';

describe('sync progress report', () => {
  it('gives the rate, the share done and the time left from two samples', () => {
    const report = syncProgressReport(
      { block: 100, at: 0 },
      { startingBlock: 0, currentBlock: 300, highestBlock: 1000, syncing: true },
      2000,
    );
    expect(report).toEqual({
      current: 300,
      highest: 1000,
      percent: 30,
      blocksPerSecond: 100,
      secondsLeft: 7,
    });
  });

  it('leaves the time left unknown while no block has come', () => {
    const report = syncProgressReport(
      { block: 300, at: 0 },
      { startingBlock: 0, currentBlock: 300, highestBlock: 1000, syncing: true },
      2000,
    );
    expect(report.blocksPerSecond).toBe(0);
    expect(report.secondsLeft).toBeUndefined();
  });
});
