import { ChainError } from '@chain/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';

const amountBytes = (v: bigint) => new ByteWriter().amount(v).finish();

describe('amount encoding', () => {
  // Hand-computed: u8 length || big-endian minimal bytes.
  it.each([
    [0n, [0x00]],
    [1n, [0x01, 0x01]],
    [255n, [0x01, 0xff]],
    [256n, [0x02, 0x01, 0x00]],
    // 10^18 = 0x0DE0B6B3A7640000
    [10n ** 18n, [0x08, 0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x00]],
    // 2^64 = 0x01 followed by eight zero bytes
    [1n << 64n, [0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]],
  ])('encodes %s as hand-computed bytes', (value, bytes) => {
    expect([...amountBytes(value)]).toEqual(bytes);
    expect(new ByteReader(Uint8Array.from(bytes)).amount()).toBe(value);
  });

  it('round-trips every amount up to 2^256-1', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (v) => {
        const r = new ByteReader(amountBytes(v));
        expect(r.amount()).toBe(v);
        r.end();
      }),
    );
  });

  it('writes the minimal big-endian bytes node:buffer makes of the same hex', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 256n) - 1n }), (v) => {
        const hex = v.toString(16);
        const reference = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
        expect(amountBytes(v)).toEqual(Uint8Array.from([reference.length, ...reference]));
      }),
    );
  });

  it('hands out plain Uint8Arrays of their own', () => {
    const a = new ByteWriter(2).u32(0x01020304).finish();
    const b = new ByteWriter().bytes(new Uint8Array(300).fill(9)).finish();
    expect(Object.getPrototypeOf(a)).toBe(Uint8Array.prototype);
    expect([...a]).toEqual([4, 3, 2, 1]);
    expect(b.buffer.byteLength).toBe(300);
  });

  it('refuses negative and oversized amounts when encoding', () => {
    expect(() => amountBytes(-1n)).toThrow(ChainError);
    expect(() => amountBytes(1n << 256n)).toThrow(/amount/);
  });

  it('refuses non-minimal and over-long encodings when decoding', () => {
    expect(() => new ByteReader(Uint8Array.from([0x02, 0x00, 0x01])).amount()).toThrow(
      expect.objectContaining({ reason: 'BAD_AMOUNT_ENCODING' }),
    );
    expect(() => new ByteReader(new Uint8Array([33, ...new Array(33).fill(1)])).amount()).toThrow(
      expect.objectContaining({ reason: 'BAD_AMOUNT_ENCODING' }),
    );
  });
});

describe('ByteReader', () => {
  it('reads little-endian integers written by ByteWriter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.uint8Array({ maxLength: 300 }),
        fc.string(),
        (a, b, c, bytes, text) => {
          const w = new ByteWriter(4).u8(a).u16(b).u32(c).varBytes16(bytes).string16(text);
          const r = new ByteReader(w.finish());
          expect([r.u8(), r.u16(), r.u32()]).toEqual([a, b, c]);
          expect(r.varBytes16()).toEqual(bytes);
          expect(r.string16()).toBe(text);
          r.end();
        },
      ),
    );
  });

  it('writes u32 little-endian (hand-checked)', () => {
    expect([...new ByteWriter().u32(0x01020304).finish()]).toEqual([4, 3, 2, 1]);
  });

  it('throws only ChainError (INVALID_DATA) on truncated or trailing data', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const r = new ByteReader(bytes);
        try {
          r.u32();
          r.amount();
          r.varBytes16();
          r.end();
        } catch (error) {
          expect(error).toBeInstanceOf(ChainError);
          expect((error as ChainError).code).toBe(1016);
        }
      }),
    );
  });
});
