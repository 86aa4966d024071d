import { blake3 } from '@noble/hashes/blake3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pureHashes } from './hashes';
import { LT_HASH_BYTES, LtHash, ltHashElement } from './lthash';
import { nativeHashes } from './native';

const text = (s: string) => new TextEncoder().encode(s);
const input = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

/** Lane-wise reference on plain u16 arrays, independent of the SWAR words. */
function reference(adds: Uint8Array[], removes: Uint8Array[]): Uint8Array {
  const lanes = new Uint16Array(LT_HASH_BYTES / 2);
  const apply = (data: Uint8Array, sign: 1 | -1) => {
    const out = Buffer.from(blake3(data, { dkLen: LT_HASH_BYTES }));
    for (let i = 0; i < lanes.length; i++) lanes[i] = lanes[i]! + sign * out.readUInt16LE(2 * i);
  };
  for (const a of adds) apply(a, 1);
  for (const r of removes) apply(r, -1);
  const bytes = Buffer.alloc(LT_HASH_BYTES);
  for (let i = 0; i < lanes.length; i++) bytes.writeUInt16LE(lanes[i]!, 2 * i);
  return Uint8Array.from(bytes);
}

/** Official BLAKE3 test vectors (BLAKE3-team/BLAKE3, test_vectors.json): input i % 251. */
const BLAKE3_VECTORS: Array<[number, string]> = [
  [
    0,
    'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262e00f03e7b69af26b7faaf09fcd333050338ddfe085b8cc869ca98b206c08243a26f5487789e8f660afe6c99ef9e0c52b92e7393024a80459cf91f476f9ffdbda7001c22e159b402631f277ca96f2defdf1078282314e763699a31c5363165421cce14d',
  ],
  [
    1025,
    'd00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444f4c4a22b4b399155358a994e52bf255de60035742ec71bd08ac275a1b51cc6bfe332b0ef84b409108cda080e6269ed4b3e2c3f7d722aa4cdc98d16deb554e5627be8f955c98e1d5f9565a9194cad0c4285f93700062d9595adb992ae68ff12800ab67a',
  ],
];

describe('LtHash', () => {
  it('hashes with BLAKE3 as its official test vectors say, extended output included', async () => {
    // hash-wasm compiles asynchronously; @noble answers until then, and must agree too.
    const before = BLAKE3_VECTORS.map(([n]) => nativeHashes.blake3(input(n), 131));
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const [i, [n, hex]] of BLAKE3_VECTORS.entries()) {
      for (const hashes of [nativeHashes, pureHashes]) {
        expect(Buffer.from(hashes.blake3(input(n), 131)).toString('hex')).toBe(hex);
        expect(Buffer.from(hashes.blake3(input(n), 32)).toString('hex')).toBe(hex.slice(0, 64));
      }
      expect(Buffer.from(before[i]!).toString('hex')).toBe(hex);
    }
    const data = text('an entry');
    expect(nativeHashes.blake3(data, LT_HASH_BYTES)).toEqual(
      pureHashes.blake3(data, LT_HASH_BYTES),
    );
  });

  it('the element is BLAKE3 read to 2048 bytes, native and pure alike', () => {
    const data = text('abc');
    const expected = Buffer.from(blake3(data, { dkLen: LT_HASH_BYTES }));
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
