import { cpus, totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { describeHardware, HARDWARE_FIELDS, MAX_HARDWARE_FIELD_BYTES } from './hardware';

describe('describeHardware', () => {
  it('describes this machine as JSON texts that node:os agrees with', async () => {
    const hw = await describeHardware();
    for (const field of HARDWARE_FIELDS) {
      expect(typeof hw[field]).toBe('string');
      expect(Buffer.byteLength(hw[field])).toBeLessThanOrEqual(MAX_HARDWARE_FIELD_BYTES);
    }
    const cpu = JSON.parse(hw.CPU);
    expect(cpu.cores).toBe(cpus().length);
    expect(JSON.parse(hw.RAM).total).toBe(totalmem());
    expect(Array.isArray(JSON.parse(hw.GPU).controllers)).toBe(true);
    const disk = JSON.parse(hw.DISK);
    expect(Array.isArray(disk.devices)).toBe(true);
    // Any machine that runs this test has a file system with a size.
    expect(disk.filesystems.length).toBeGreaterThan(0);
    expect(disk.filesystems[0].size).toBeGreaterThan(0);
  });
});
