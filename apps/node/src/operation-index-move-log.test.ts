import { describe, expect, it } from 'vitest';
import type { Logger } from './logger';
import { operationIndexMoveLogger } from './operation-index-move-log';

describe('the operation index move log', () => {
  it('says the start, where it stands at most every interval, and the end', () => {
    const lines: Array<[Record<string, unknown>, string]> = [];
    const log = {
      info: (fields: Record<string, unknown>, message: string) => lines.push([fields, message]),
    };
    let clock = 1_000;
    const report = operationIndexMoveLogger(log as unknown as Logger, 2000, () => clock);
    report(0, 60_000);
    clock += 500;
    report(20_000, 60_000);
    clock += 2_000;
    report(40_000, 60_000);
    clock += 100;
    report(60_000, 60_000);
    expect(lines.map(([, message]) => message)).toEqual([
      'moving the operation index into signer order (once, for a data directory of an older layout)',
      'moving the operation index',
      'operation index moved',
    ]);
    expect(lines[1]![0]).toMatchObject({ moved: 40_000, operations: 60_000 });
    expect(lines[2]![0]).toMatchObject({ operations: 60_000, ms: 2_600 });
  });
});
