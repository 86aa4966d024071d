import { describe, expect, it } from 'vitest';
import type { Logger } from './logger';
import { stateScanLogger } from './state-scan-log';

describe('the state scan log', () => {
  it('logs the start, progress at most every interval, and the end', () => {
    const lines: Array<[Record<string, unknown>, string]> = [];
    const log = {
      info: (fields: Record<string, unknown>, message: string) => lines.push([fields, message]),
    };
    let clock = 0;
    const report = stateScanLogger(log as unknown as Logger, 2000, () => clock);
    report(0, 1000);
    clock = 2500;
    report(100, 1000);
    clock = 3000;
    report(200, 1000);
    clock = 5000;
    report(500, 1000);
    report(1000, 1000);
    expect(lines.map(([, message]) => message)).toEqual([
      'reading the whole state (one pass over every account)',
      'reading the state',
      'reading the state',
      'state read and checked',
    ]);
    expect(lines[2]![0]).toMatchObject({ done: 500, percent: 50 });
  });
});
