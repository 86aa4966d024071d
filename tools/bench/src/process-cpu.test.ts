import { describe, expect, it } from 'vitest';
import { cpuPerOperation, processCpuSeconds } from './process-cpu.js';

describe('processCpuSeconds', () => {
  it.runIf(process.platform === 'linux')('reads a live process and grows as it works', async () => {
    const before = await processCpuSeconds(process.pid);
    // Works until the kernel has counted some of it (a tick is 10 ms of CPU), however busy the host.
    let after = before;
    for (let round = 0; round < 1_000 && after === before; round++) {
      const until = performance.now() + 20;
      while (performance.now() < until);
      after = await processCpuSeconds(process.pid);
    }
    expect(before).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(before!);
  });

  it('is undefined for no process', async () => {
    expect(await processCpuSeconds(undefined)).toBeUndefined();
    expect(await processCpuSeconds(2 ** 30)).toBeUndefined();
  });

  it('gives microseconds per operation, or ? when unknown', () => {
    expect(cpuPerOperation(1, 2, 10_000)).toBe('100.0');
    expect(cpuPerOperation(undefined, 2, 10)).toBe('?');
    expect(cpuPerOperation(1, 2, 0)).toBe('?');
  });
});
