import { afterEach, describe, expect, it } from 'vitest';
import { DurationBuckets } from './call-stats.js';
import { startTestServer, type TestServer } from './test-server.js';

let running: TestServer | undefined;
afterEach(async () => {
  await running?.server.close();
  running = undefined;
});

describe('DurationBuckets', () => {
  it('counts a call in the first bucket whose bound holds it, the rest in +Inf', () => {
    const buckets = new DurationBuckets([0.001, 0.01]);
    for (const ms of [0.5, 1, 1.5, 10, 11, 5000]) buckets.observe(ms);
    expect([...buckets.counts]).toEqual([2, 2, 2]);
  });
});

describe('method counters (what metrics read at scrape time)', () => {
  it('count calls, errors and, when asked, durations per method', async () => {
    running = await startTestServer({
      durationBucketsSeconds: [0.5, 10],
      handlers: {
        getBlockCount: () => 5,
        getBlockInfo: () => {
          throw new Error('boom');
        },
      },
    });
    for (let i = 0; i < 3; i++) await running.call('getBlockCount');
    await running.call('getBlockInfo', { block: 'x' }); // refused by coercion
    await running.call('getBlockInfo', { block: 1 }); // the handler fails
    const counters = new Map(running.server.methodCounters().map((c) => [c.method, c]));
    expect(counters.get('getBlockCount')).toMatchObject({ calls: 3, errors: 0 });
    expect(counters.get('getBlockInfo')).toMatchObject({ calls: 2, errors: 2 });
    const durations = counters.get('getBlockCount')!.durations!;
    expect([...durations.counts].reduce((a, b) => a + b)).toBe(3);
    expect(counters.get('nodeUptime')).toMatchObject({ calls: 0, errors: 0 });
  });

  it('keep no durations unless the server was given buckets', async () => {
    running = await startTestServer({ handlers: { getBlockCount: () => 5 } });
    await running.call('getBlockCount');
    const counter = running.server.methodCounters().find((c) => c.method === 'getBlockCount');
    expect(counter).toMatchObject({ calls: 1, errors: 0, durations: undefined });
  });
});
