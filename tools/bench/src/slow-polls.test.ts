import { describe, expect, it } from 'vitest';
import { parseGcLog } from './slow-polls.js';

const line = (readMs: number, isolate: string, isolateMs: number, pause: number, kind: string) =>
  `${readMs} [7:${isolate}]   ${isolateMs} ms: pause=${pause} mutator=1.0 gc=${kind} reduce_memory=0 allocated=10`;

describe('parseGcLog', () => {
  it("keeps the isolate that paused most, placing each pause by the isolate's own clock", () => {
    const text = [
      line(1_000_050, '0xaa', 50, 1.5, 's'), // read at once: the isolate started at 1,000,000
      line(1_000_400, '0xaa', 300, 4, 's'), // read 100 ms late (buffered): ended at 1,000,300
      line(1_000_401, '0xaa', 350, 12, 'ms'),
      line(1_000_500, '0xbb', 10, 2, 's'), // a verifier thread's isolate, fewer ms of pause
      'chain-node: something else it printed',
    ].join('\n');
    expect(parseGcLog(text)).toEqual([
      { isolate: '0xaa', kind: 's', pauseMs: 1.5, endMs: 1_000_050 },
      { isolate: '0xaa', kind: 's', pauseMs: 4, endMs: 1_000_300 },
      { isolate: '0xaa', kind: 'ms', pauseMs: 12, endMs: 1_000_350 },
    ]);
  });
});
