import { describe, expect, it } from 'vitest';
import tokenThroughput, { TOKEN_TARGET_RATIO } from './token-throughput.js';

describe('token-throughput benchmark', () => {
  it('loads the real node with sendTo then sendToken, checks both are all mined, and reports tokens beside native', async () => {
    const logs: string[] = [];

    const [figure, ...rest] = await tokenThroughput.run({
      durationSec: 1,
      durationGiven: true,
      warmupSec: 0,
      connections: 1,
      log: (message) => logs.push(message),
    });

    expect(rest).toEqual([]);
    expect(figure).toMatchObject({
      name: 'sendToken into blocks (1 s)',
      unit: 'ops/s',
      ceilingName: 'sendTo into blocks, same node and run',
      target: TOKEN_TARGET_RATIO,
    });
    expect(figure!.value).toBeGreaterThan(0);
    expect(figure!.ceiling).toBeGreaterThan(0);
    expect(figure!.ratio).toBeCloseTo(figure!.value / figure!.ceiling, 9);
    expect(figure!.pass).toBe(figure!.ratio >= TOKEN_TARGET_RATIO);
    // Both loads ran their mined check: acknowledged operations, all mined, none refused.
    const summaries = logs.filter((line) => line.includes('acknowledged'));
    expect(summaries).toHaveLength(2);
    for (const summary of summaries) {
      expect(summary).toMatch(
        /acknowledged [1-9]\d* .* refused 0, failed 0; all mined in \d+ blocks/,
      );
    }
  }, 60_000);
});
