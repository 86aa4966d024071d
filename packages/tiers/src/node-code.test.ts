import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeCodeOf, parseNodeCode } from './node-code';

describe('node codes', () => {
  it('are the first 8 bytes of sha256("chain-node-code" || account u32le || n_operation u32le)', () => {
    // Computed here with node:crypto from the documented recipe, independently of the code.
    const message = Buffer.concat([
      Buffer.from('chain-node-code'),
      Buffer.from([0x2a, 0, 0, 0]), // account 42
      Buffer.from([0x07, 0x01, 0, 0]), // n_operation 263
    ]);
    const expected = createHash('sha256').update(message).digest('hex').slice(0, 16);
    expect(nodeCodeOf(42, 263)).toBe(expected);
    expect(nodeCodeOf(42, 264)).not.toBe(expected);
  });

  it('parses 16 hex digits in either case and refuses anything else', () => {
    expect(parseNodeCode('00FFaa11bb22cc33')).toBe('00ffaa11bb22cc33');
    for (const bad of ['', '00ff', '00ffaa11bb22cc3g', '00ffaa11bb22cc3300']) {
      expect(() => parseNodeCode(bad)).toThrow(
        expect.objectContaining({ code: 1016, reason: 'BAD_CODE', param: 'code' }),
      );
    }
  });
});
