import { describe, expect, it } from 'vitest';
import { splitCost } from './network-cpu.js';

/** A phase of `seconds` whose node 0 spent idle + blocks x perBlock + operations x perOp. */
function phase(seconds: number, blocks: number, operations: number, idleMsPerS: number) {
  const cpuMs = idleMsPerS * seconds + blocks * 8 + operations * 2.5;
  return { msPerS: [cpuMs / seconds], cpuMs: [cpuMs], elapsedS: seconds, blocks, operations };
}

describe('splitCost', () => {
  it('tells the cost of a block from that of an operation over two rates', () => {
    const low = phase(20, 40, 80, 6);
    const high = phase(21, 41, 800, 6);
    const cost = splitCost(6, low, high, 0);
    expect(cost.perBlock).toBeCloseTo(8, 9);
    expect(cost.perOperation).toBeCloseTo(2.5, 9);
  });

  it('charges everything to the operations when the phases cannot be told apart', () => {
    const same = phase(20, 40, 80, 0);
    const cost = splitCost(0, same, same, 0);
    expect(cost.perBlock).toBeNaN();
    expect(cost.perOperation).toBeCloseTo((40 * 8 + 80 * 2.5) / 80, 9);
  });
});
