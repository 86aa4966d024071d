import { describe, expect, it } from 'vitest';
import { createCreationClock, creationTimeOfName, keyFileName } from './key-file-name';

describe('key file names', () => {
  it('follow geth: UTC--<ISO time, - for :>--<address>', () => {
    // 2024-01-02T03:04:05.678Z is 1704164645678 ms after the epoch (checked with `date -u -d`).
    const ns = 1704164645678n * 1_000_000n + 42n;
    expect(keyFileName(ns, 'CHabc')).toBe('UTC--2024-01-02T03-04-05.678000042Z--CHabc.json');
    expect(creationTimeOfName('UTC--2024-01-02T03-04-05.678000042Z--CHabc.json')).toBe(ns);
  });

  it('read the times geth and ethers write', () => {
    const second = 1704164645n * 1_000_000_000n;
    expect(creationTimeOfName('UTC--2024-01-02T03-04-05.0Z--008aeeda')).toBe(second);
    expect(creationTimeOfName('UTC--2024-01-02T03-04-05.5Z--x')).toBe(second + 500_000_000n);
    expect(creationTimeOfName('UTC--2024-01-02T03:04:05Z--x')).toBe(second);
    expect(creationTimeOfName('my-key.json')).toBeNull();
    expect(creationTimeOfName('UTC--2024-13-45T03-04-05Z--x')).toBeNull();
  });

  it('are made in strictly increasing order within one millisecond', () => {
    const next = createCreationClock(() => 1_000);
    const a = next();
    const b = next();
    expect(a).toBe(1_000_000_000n);
    expect(b).toBe(a + 1n);
    expect(keyFileName(a, 'x') < keyFileName(b, 'x')).toBe(true);
  });
});
