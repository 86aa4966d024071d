import { describe, expect, it } from 'vitest';
import executeRawThroughput, {
  BLOB_OPERATIONS,
  EXECUTE_RAW_TARGET,
} from './execute-raw-throughput.js';

describe('execute-raw-throughput benchmark', () => {
  it('sends pre-signed transfers through excuteRaw, one and many per call, checks every one is mined, and reports them beside the verify ceiling', async () => {
    const logs: string[] = [];

    const figures = await executeRawThroughput.run({
      durationSec: 0.1,
      durationGiven: true,
      warmupSec: 0,
      connections: 1,
      log: (message) => logs.push(message),
    });

    expect(figures.map((figure) => figure.name)).toEqual([
      'excuteRaw into blocks, 1 per call',
      `excuteRaw into blocks, ${BLOB_OPERATIONS} per call`,
    ]);
    for (const figure of figures) {
      expect(figure).toMatchObject({ unit: 'ops/s', target: EXECUTE_RAW_TARGET });
      expect(figure.ceilingName).toMatch(/^libsecp256k1 verify, 1 core x \d+$/);
      expect(figure.value).toBeGreaterThan(0);
      expect(figure.ratio).toBeCloseTo(figure.value / figure.ceiling, 9);
    }
    // The mined check ran for both phases (it throws on any refusal or difference).
    const summaries = logs.filter((line) => /operations in \d+ calls/.test(line));
    expect(summaries).toHaveLength(2);
    for (const line of summaries) expect(line).toMatch(/all mined in \d+ blocks/);
  }, 120_000);
});
