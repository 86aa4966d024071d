import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pureHashes } from './hashes';
import { LT_HASH_BYTES, LtHash, ltHashElement } from './lthash';
import { nativeHashes } from './native';

const text = (s: string) => new TextEncoder().encode(s);

/** Lane-wise reference on plain u16 arrays, independent of the SWAR words. */
function reference(adds: Uint8Array[], removes: Uint8Array[]): Uint8Array {
  const lanes = new Uint16Array(LT_HASH_BYTES / 2);
  const apply = (data: Uint8Array, sign: 1 | -1) => {
    const out = createHash('shake256', { outputLength: LT_HASH_BYTES }).update(data).digest();
    for (let i = 0; i < lanes.length; i++) lanes[i] = lanes[i]! + sign * out.readUInt16LE(2 * i);
  };
  for (const a of adds) apply(a, 1);
  for (const r of removes) apply(r, -1);
  const bytes = Buffer.alloc(LT_HASH_BYTES);
  for (let i = 0; i < lanes.length; i++) bytes.writeUInt16LE(lanes[i]!, 2 * i);
  return Uint8Array.from(bytes);
}

describe('LtHash', () => {
  it('the element is SHAKE256 read to 2048 bytes, native and pure alike', () => {
    const data = text('abc');
    const expected = createHash('shake256', { outputLength: LT_HASH_BYTES }).update(data).digest();
    const native = LtHash.identity().add(ltHashElement(nativeHashes, data));
    const pure = LtHash.identity().add(ltHashElement(pureHashes, data));
    expect(Buffer.from(native.toBytes()).equals(expected)).toBe(true);
    expect(pure.equals(native)).toBe(true);
  });

  it('adds and removes lane-wise mod 2^16, as the u16 reference does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 6 }),
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 6 }),
        (adds, removes) => {
          const h = LtHash.identity();
          for (const a of adds) h.add(ltHashElement(nativeHashes, a));
          for (const r of removes) h.remove(ltHashElement(nativeHashes, r));
          expect(Buffer.from(h.toBytes()).equals(reference(adds, removes))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is independent of order, and a removal undoes an addition exactly', () => {
    const entries = ['a', 'b', 'c', 'd'].map((s) => ltHashElement(nativeHashes, text(s)));
    const forward = LtHash.identity();
    for (const e of entries) forward.add(e);
    const backward = LtHash.identity();
    for (const e of [...entries].reverse()) backward.add(e);
    expect(forward.equals(backward)).toBe(true);
    const extra = ltHashElement(nativeHashes, text('e'));
    const moved = forward.copy().add(extra).remove(extra);
    expect(moved.equals(forward)).toBe(true);
    expect(forward.copy().add(extra).equals(forward)).toBe(false);
    for (const e of entries) forward.remove(e);
    expect(forward.equals(LtHash.identity())).toBe(true);
  });

  it('round-trips its bytes and keeps copies apart', () => {
    const h = LtHash.identity().add(ltHashElement(nativeHashes, text('x')));
    const back = LtHash.fromBytes(h.toBytes());
    expect(back.equals(h)).toBe(true);
    back.add(ltHashElement(nativeHashes, text('y')));
    expect(back.equals(h)).toBe(false);
    const unaligned = new Uint8Array(LT_HASH_BYTES + 1);
    unaligned.set(h.toBytes(), 1);
    expect(LtHash.fromBytes(unaligned.subarray(1)).equals(h)).toBe(true);
    expect(() => LtHash.fromBytes(new Uint8Array(10))).toThrow(/2048 bytes/);
  });
});
