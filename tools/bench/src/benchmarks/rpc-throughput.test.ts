import { describe, expect, it } from 'vitest';
import rpcThroughput, { BATCH_TARGET, SINGLE_CALL_TARGET } from './rpc-throughput.js';

describe('rpc-throughput benchmark', () => {
  it('measures chain-node and the bare server and reports both figures beside their ceiling', async () => {
    const logs: string[] = [];

    const figures = await rpcThroughput.run({
      durationSec: 0.5,
      warmupSec: 0,
      connections: 2,
      log: (message) => logs.push(message),
    });

    expect(figures.map((figure) => [figure.name, figure.unit, figure.target])).toEqual([
      ['rpc getBlockCount', 'calls/s', SINGLE_CALL_TARGET],
      ['rpc batch of 100 getBlockCount', 'calls/s', BATCH_TARGET],
    ]);
    for (const figure of figures) {
      expect(figure.value).toBeGreaterThan(0);
      expect(figure.ceiling).toBeGreaterThan(0);
      expect(figure.ceilingName).toBe('bare node:http JSON-RPC server');
      expect(figure.ratio).toBeCloseTo(figure.value / figure.ceiling, 9);
      expect(figure.pass).toBe(figure.ratio >= figure.target);
      expect(figure.latency?.p99Ms).toBeGreaterThanOrEqual(figure.latency?.p50Ms ?? 0);
    }
    // A batch carries 100 calls: its calls/s is 100 x its requests/s, far above 100 requests/s.
    expect(figures[1].value).toBeGreaterThan(100 * 10);
    expect(logs.filter((line) => line.includes('chain-node'))).toHaveLength(2);
  });
});
