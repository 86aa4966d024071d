import { expect } from 'vitest';

/** A frame of a block or snapshot file: where it starts and its payload's length. */
export interface Frame {
  offset: number;
  length: number;
}

/** The frames of a framed file after its `headerBytes`-byte header (length | bytes | CRC each). */
export function frameLayout(file: Uint8Array, headerBytes: number): Frame[] {
  const out: Frame[] = [];
  const data = new DataView(file.buffer, file.byteOffset, file.length);
  for (let at = headerBytes; at < file.length; ) {
    const length = data.getUint32(at);
    out.push({ offset: at, length });
    at += length + 8;
  }
  return out;
}

/** An offline command refused in one line, exit code 1, no stack trace. */
export function expectCleanRefusal(
  result: { code: number | null; stderr: string },
  pattern: RegExp,
): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}
