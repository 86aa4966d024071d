import { describe, expect, it } from 'vitest';
import { cpuPerOperation, processCpuSeconds } from './process-cpu.js';

describe('processCpuSeconds', () => {
  it.runIf(process.platform === 'linux')('reads a live process and grows as it works', async () => {
    const before = await processCpuSeconds(process.pid);
    const until = performance.now() + 200;
    let spin = 0;
    while (performance.now() < until) spin++;
    const after = await processCpuSeconds(process.pid);
    expect(spin).toBeGreaterThan(0);
    expect(before).toBeGreaterThan(0);
    expect(after! - before!).toBeGreaterThanOrEqual(0.1);
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
