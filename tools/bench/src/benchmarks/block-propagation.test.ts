import { describe, expect, it } from 'vitest';
import type { NodeProcess } from '../node-process.js';
import { BlockLog, percentile } from './block-propagation.js';

describe('block propagation figures', () => {
  it('percentile picks the nearest-rank value', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("reads each block's first log time from a node's output, skipping other and cut lines", () => {
    let output = [
      'ock","time":5}',
      '{"level":20,"time":1000,"block":3,"operations":1,"msg":"block"}',
      '{"level":30,"time":1001,"msg":"peer connected"}',
    ].join('\n');
    const log = new BlockLog({ output: () => output } as unknown as NodeProcess);
    log.poll();
    output += '\n{"level":20,"time":1010,"block":4,"operations":2,"msg":"block"}\n';
    output += '{"level":20,"time":1020,"block":3,"operations":1,"msg":"block"}\n';
    log.poll();
    expect([...log.times]).toEqual([
      [3, 1000],
      [4, 1010],
    ]);
  });
});
