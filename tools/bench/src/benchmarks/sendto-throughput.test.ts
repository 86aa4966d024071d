import { describe, expect, it } from 'vitest';
import sendToThroughput, { SENDTO_SIGNING_TARGET, SENDTO_TARGET } from './sendto-throughput.js';

describe('sendto-throughput benchmark', () => {
  it('loads the real node with sendTo, checks every acknowledged operation is mined, and reports it beside the bare server', async () => {
    const logs: string[] = [];

    const [figure, signing, ...rest] = await sendToThroughput.run({
      durationSec: 1,
      durationGiven: true,
      warmupSec: 0,
      connections: 1,
      log: (message) => logs.push(message),
    });

    expect(rest).toEqual([]);
    expect(figure).toMatchObject({
      name: 'sendTo into blocks (1 s)',
      unit: 'ops/s',
      ceilingName: 'bare node:http JSON-RPC server',
      target: SENDTO_TARGET,
      targetOf: 'value',
    });
    expect(figure!.value).toBeGreaterThan(0);
    expect(figure!.ceiling).toBeGreaterThan(0);
    expect(figure!.ratio).toBeCloseTo(figure!.value / figure!.ceiling, 9);
    expect(figure!.pass).toBe(figure!.value >= SENDTO_TARGET);
    // The same rate beside the signatures it needs: one per operation, on every core.
    expect(signing).toMatchObject({
      name: 'sendTo into blocks (1 s) vs signing',
      value: figure!.value,
      ceilingName: expect.stringMatching(/^libsecp256k1 sign, 1 core x \d+$/),
      target: SENDTO_SIGNING_TARGET,
    });
    expect(signing!.ratio).toBeCloseTo(figure!.value / signing!.ceiling, 9);
    expect(signing!.pass).toBe(signing!.ratio >= SENDTO_SIGNING_TARGET);
    // The mined check ran: acknowledged operations, all mined, none refused.
    const summary = logs.find((line) => line.includes('acknowledged'));
    expect(summary).toMatch(/acknowledged \d+ .* refused 0, failed 0; all mined in \d+ blocks/);
  }, 60_000);
});
