import { describe, expect, it } from 'vitest';
import { grownStateFigures, grownTargetFromEnvironment, measureGrownState } from './state-grown.js';

describe('state-grown benchmark', () => {
  it('grows the state by sendTo to new accounts, every one mined, then restarts on it', async () => {
    const logs: string[] = [];
    const run = await measureGrownState((message) => logs.push(message), 3_000);
    // The target counts accounts created: exactly that many transfers acknowledged and mined.
    expect(run.acknowledged).toBe(3_000);
    expect(run.intervals.length).toBe(10);
    expect(run.intervals.at(-1)!.accounts).toBe(3_000);
    expect(run.intervals.every((interval) => interval.acceptedPerSec > 0)).toBe(true);
    expect(
      run.intervals.every((interval) => interval.anonBytes > 0 && interval.fileBytes > 0),
    ).toBe(true);
    expect(run.blocks).toBeGreaterThan(0);
    expect(run.readySec).toBeGreaterThanOrEqual(run.firstAnswerSec);
    expect(run.chainBytes).toBeGreaterThan(0);
    expect(run.datadirBytes).toBeGreaterThanOrEqual(run.chainBytes);
    expect(logs.some((line) => line.includes('start-up phases'))).toBe(true);

    const figures = grownStateFigures(run);
    expect(figures.map((figure) => figure.name)).toEqual([
      'sendTo accepted/s, the last 300 accounts, grown to 3,000 accounts by sendTo',
      'restart to ready, grown to 3,000 accounts by sendTo',
      'peak VmRSS while growing, grown to 3,000 accounts by sendTo, default flags',
      'data directory, grown to 3,000 accounts by sendTo',
    ]);
  }, 180_000);

  it('takes its target from BENCH_GROWN_ACCOUNTS, refusing what is not a whole count', () => {
    expect(grownTargetFromEnvironment({})).toBe(10_000_000);
    expect(grownTargetFromEnvironment({ BENCH_GROWN_ACCOUNTS: '2000000' })).toBe(2_000_000);
    expect(() => grownTargetFromEnvironment({ BENCH_GROWN_ACCOUNTS: '1.5e3' })).not.toThrow();
    expect(() => grownTargetFromEnvironment({ BENCH_GROWN_ACCOUNTS: 'many' })).toThrow(
      /BENCH_GROWN_ACCOUNTS must be an integer of at least 1000/,
    );
    expect(() => grownTargetFromEnvironment({ BENCH_GROWN_ACCOUNTS: '999' })).toThrow(
      /at least 1000/,
    );
  });
});
