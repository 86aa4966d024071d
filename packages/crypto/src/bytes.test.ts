import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bigintToBytesBE,
  bigintToBytesBEPadded,
  bytesToBigintBE,
  bytesToHex,
  concatBytes,
  equalBytes,
  hexByTable,
  hexToBytes,
  isHex,
  randomBytes,
  readU16le,
  readU32le,
  readU64le,
  u16le,
  u32le,
  u64le,
  utf8ToBytes,
} from './bytes';
import { CryptoError, ErrorCode } from './errors';

describe('hex', () => {
  it('encodes lowercase and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(bytesToHex(bytes)).toBe(Buffer.from(bytes).toString('hex'));
      }),
    );
    expect(bytesToHex(Uint8Array.of(0x00, 0xab, 0xff))).toBe('00abff');
  });

  it('encodes only the bytes of a view, natively and by the table (a browser has no Buffer)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(80), fc.nat(80), (bytes, a, b) => {
        const view = bytes.subarray(Math.min(a, b), Math.max(a, b));
        const expected = Buffer.from(view).toString('hex');
        expect(bytesToHex(view)).toBe(expected);
        expect(hexByTable(view)).toBe(expected);
      }),
    );
  });

  it('round trips in either case and with a 0x prefix', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const hex = bytesToHex(bytes);
        expect(hexToBytes(hex)).toEqual(bytes);
        expect(hexToBytes(hex.toUpperCase())).toEqual(bytes);
        expect(hexToBytes(`0x${hex}`)).toEqual(bytes);
      }),
    );
    expect(hexToBytes('aB0fF9')).toEqual(Uint8Array.of(0xab, 0x0f, 0xf9));
  });

  it.each([
    ['abc', 'odd length'],
    ['zz', 'non-hex'],
    ['0g', 'non-hex'],
    [' 00', 'space'],
    ['00 ', 'trailing space'],
    ['+1', 'sign'],
    ['0x0', 'odd after prefix'],
    ['0xg0', 'non-hex after prefix'],
    ['0\u0130', 'a character above 0x7f (its low byte a digit)'],
    ['0\u0661', 'a non-ASCII digit'],
  ])('refuses %j (%s) with INVALID_HEX naming the param', (text) => {
    try {
      hexToBytes(text, 'payload');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CryptoError);
      expect((error as CryptoError).code).toBe(ErrorCode.INVALID_DATA);
      expect((error as CryptoError).reason).toBe('INVALID_HEX');
      expect((error as CryptoError).param).toBe('payload');
      expect((error as CryptoError).message).toContain('payload');
    }
  });

  it('refuses non-strings', () => {
    expect(() => hexToBytes(12 as unknown as string)).toThrow(CryptoError);
  });

  it('isHex is strict (no prefix, even length)', () => {
    expect(isHex('00aAfF')).toBe(true);
    expect(isHex('')).toBe(true);
    expect(isHex('0x00')).toBe(false);
    expect(isHex('0')).toBe(false);
    expect(isHex(5)).toBe(false);
  });
});

describe('byte helpers', () => {
  it('concatBytes joins in order', () => {
    expect(concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3))).toEqual(
      Uint8Array.of(1, 2, 3),
    );
    expect(concatBytes()).toEqual(new Uint8Array(0));
  });

  it('equalBytes compares length and contents', () => {
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 0))).toBe(false);
  });

  it('utf8ToBytes encodes UTF-8 like Buffer', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(utf8ToBytes(text)).toEqual(new Uint8Array(Buffer.from(text, 'utf8')));
      }),
    );
    expect(utf8ToBytes('é')).toEqual(Uint8Array.of(0xc3, 0xa9));
  });

  it('randomBytes gives the asked length, also above the 64 KiB getRandomValues limit', () => {
    expect(randomBytes(0)).toHaveLength(0);
    const big = randomBytes(70_000);
    expect(big).toHaveLength(70_000);
    // The tail past 65536 is filled too (all-zero has probability 2^-35824).
    expect(big.subarray(65536).some((b) => b !== 0)).toBe(true);
    expect(equalBytes(randomBytes(32), randomBytes(32))).toBe(false);
  });
});

describe('little-endian integers', () => {
  it('match hand-written byte orders', () => {
    expect(u16le(0x1234)).toEqual(Uint8Array.of(0x34, 0x12));
    expect(u16le(714)).toEqual(Uint8Array.of(0xca, 0x02));
    expect(u32le(0x12345678)).toEqual(Uint8Array.of(0x78, 0x56, 0x34, 0x12));
    expect(u32le(0xffffffff)).toEqual(Uint8Array.of(0xff, 0xff, 0xff, 0xff));
    expect(u64le(0x0102030405060708n)).toEqual(Uint8Array.of(8, 7, 6, 5, 4, 3, 2, 1));
  });

  it('agree with Buffer and round trip', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (value) => {
        const buffer = Buffer.alloc(4);
        buffer.writeUInt32LE(value);
        expect(u32le(value)).toEqual(new Uint8Array(buffer));
        expect(readU32le(u32le(value))).toBe(value);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), (value) => {
        expect(readU16le(u16le(value))).toBe(value);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (value) => {
        expect(readU64le(u64le(value))).toBe(value);
      }),
    );
  });

  it('reads at an offset inside a subarray', () => {
    const bytes = Uint8Array.of(9, 9, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0).subarray(2);
    expect(readU32le(bytes, 0)).toBe(1);
    expect(readU64le(bytes, 4)).toBe(2n);
  });

  it('refuse values out of range and reads past the end', () => {
    for (const bad of [-1, 0x10000, 1.5, Number.NaN]) expect(() => u16le(bad)).toThrow(RangeError);
    for (const bad of [-1, 2 ** 32, 0.5]) expect(() => u32le(bad)).toThrow(RangeError);
    expect(() => u64le(-1n)).toThrow(RangeError);
    expect(() => u64le(1n << 64n)).toThrow(RangeError);
    expect(() => readU32le(new Uint8Array(3))).toThrow(RangeError);
    expect(() => readU16le(new Uint8Array(2), 1)).toThrow(RangeError);
    expect(() => readU64le(new Uint8Array(8), 1)).toThrow(RangeError);
  });
});

describe('big-endian bigints', () => {
  it('are minimal and round trip', () => {
    expect(bigintToBytesBE(0n)).toEqual(new Uint8Array(0));
    expect(bigintToBytesBE(255n)).toEqual(Uint8Array.of(0xff));
    expect(bigintToBytesBE(256n)).toEqual(Uint8Array.of(1, 0));
    expect(bigintToBytesBEPadded(1n, 4)).toEqual(Uint8Array.of(0, 0, 0, 1));
    expect(() => bigintToBytesBEPadded(256n, 1)).toThrow(RangeError);
    expect(() => bigintToBytesBE(-1n)).toThrow(RangeError);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (value) => {
        const bytes = bigintToBytesBE(value);
        expect(bytesToBigintBE(bytes)).toBe(value);
        if (bytes.length > 0) expect(bytes[0]).not.toBe(0);
      }),
    );
  });
});
