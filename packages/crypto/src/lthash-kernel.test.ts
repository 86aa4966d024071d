import { readFileSync } from 'node:fs';
import { createBLAKE3 } from 'hash-wasm';
import { describe, expect, it } from 'vitest';
import { assembleWat, WAT_PATH, wasmModuleSource } from '../scripts/assemble-wat';
import { BLAKE3_LTHASH_WASM } from './blake3-lthash.wasm';
import { pureHashes } from './hashes';
import { LT_HASH_BYTES, LtHash, ltHashElement } from './lthash';
import { KERNEL_MAX_INPUT, type LtHashKernel, ltHashKernel } from './lthash-kernel';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const pattern = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

/** A deterministic generator (xorshift32), so that a failure names inputs that can be rerun. */
function randomSource(seed: number) {
  let state = seed;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  return {
    below: (n: number) => next() % n,
    bytes: (n: number) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
}

function kernel(): LtHashKernel {
  const made = ltHashKernel();
  if (made === undefined) throw new Error('this Node has WebAssembly SIMD: the kernel must load');
  return made;
}

// The official BLAKE3 test vectors (BLAKE3-team/BLAKE3, test_vectors/test_vectors.json, "hash",
// 131 bytes of extended output) whose input is one chunk at most: input i % 251.
const OFFICIAL: Array<[number, string]> = [
  [
    0,
    'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262e00f03e7b69af26b7faaf09fcd333050338ddfe085b8cc869ca98b206c08243a26f5487789e8f660afe6c99ef9e0c52b92e7393024a80459cf91f476f9ffdbda7001c22e159b402631f277ca96f2defdf1078282314e763699a31c5363165421cce14d',
  ],
  [
    1,
    '2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213c3a6cb8bf623e20cdb535f8d1a5ffb86342d9c0b64aca3bce1d31f60adfa137b358ad4d79f97b47c3d5e79f179df87a3b9776ef8325f8329886ba42f07fb138bb502f4081cbcec3195c5871e6c23e2cc97d3c69a613eba131e5f1351f3f1da786545e5',
  ],
  [
    1023,
    '10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11a182d27a591b05592b15607500e1e8dd56bc6c7fc063715b7a1d737df5bad3339c56778957d870eb9717b57ea3d9fb68d1b55127bba6a906a4a24bbd5acb2d123a37b28f9e9a81bbaae360d58f85e5fc9d75f7c370a0cc09b6522d9c8d822f2f28f485',
  ],
  [
    1024,
    '42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af71cf8107265ecdaf8505b95d8fcec83a98a6a96ea5109d2c179c47a387ffbb404756f6eeae7883b446b70ebb144527c2075ab8ab204c0086bb22b7c93d465efc57f8d917f0b385c6df265e77003b85102967486ed57db5c5ca170ba441427ed9afa684e',
  ],
];

describe('LtHashKernel', () => {
  it('its committed bytes are blake3-lthash.wat assembled (run `npm run wasm` after editing it)', async () => {
    const bytes = await assembleWat(readFileSync(WAT_PATH, 'utf8'));
    expect(Buffer.from(BLAKE3_LTHASH_WASM, 'base64').equals(Buffer.from(bytes))).toBe(true);
    const committed = readFileSync(new URL('./blake3-lthash.wasm.ts', import.meta.url), 'utf8');
    expect(committed).toBe(wasmModuleSource(bytes));
  });

  it('answers the official BLAKE3 test vectors of one chunk or less, extended output included', () => {
    for (const [length, expected] of OFFICIAL) {
      expect(hex(kernel().element(pattern(length)).subarray(0, 131)), `length ${length}`).toBe(
        expected,
      );
    }
  });

  it('is BLAKE3 read to 2048 bytes (hash-wasm) for every input length up to one chunk', async () => {
    const reference = await createBLAKE3(LT_HASH_BYTES * 8);
    const random = randomSource(0x9e3779b9);
    for (let length = 0; length <= KERNEL_MAX_INPUT; length++) {
      // Every length of the entries' range (up to 300 bytes), then every block boundary and some
      // lengths between them.
      if (length > 300 && length % 64 > 1 && length % 64 !== 63 && random.below(8) !== 0) continue;
      const input = random.bytes(length);
      const expected = reference.init().update(input).digest('binary');
      expect(hex(kernel().element(input)), `length ${length}`).toBe(hex(expected));
    }
  });

  it('refuses an input longer than one chunk', () => {
    expect(() => kernel().element(new Uint8Array(KERNEL_MAX_INPUT + 1))).toThrow(RangeError);
  });

  it('moves a vector as adding and removing each element does, over many calls of the module', () => {
    const random = randomSource(7);
    // More than one call's inputs (512), lengths over all of the range.
    const added = Array.from({ length: 700 }, () =>
      random.bytes(random.below(KERNEL_MAX_INPUT + 1)),
    );
    const removed = Array.from({ length: 300 }, () => random.bytes(random.below(200)));
    const start = LtHash.identity().update([random.bytes(40)], [], pureHashes, null);
    const expected = start.copy();
    for (const entry of added) expected.add(ltHashElement(pureHashes, entry));
    for (const entry of removed) expected.remove(ltHashElement(pureHashes, entry));
    const words = new Uint32Array(start.toBytes().buffer);
    kernel().update(words, added, removed);
    expect(hex(new Uint8Array(words.buffer))).toBe(hex(expected.toBytes()));
  });

  it('skips inputs over one chunk, which LtHash.update sums with `hashes`', () => {
    const long = pattern(KERNEL_MAX_INPUT + 1);
    const short = pattern(100);
    const words = new Uint32Array(LT_HASH_BYTES / 4);
    kernel().update(words, [long, short], [long]);
    expect(hex(new Uint8Array(words.buffer))).toBe(
      hex(LtHash.identity().add(ltHashElement(pureHashes, short)).toBytes()),
    );
    const viaKernel = LtHash.identity().update([long, short], [pattern(3)], pureHashes);
    const without = LtHash.identity().update([long, short], [pattern(3)], pureHashes, null);
    expect(viaKernel.equals(without)).toBe(true);
    expect(viaKernel.equals(LtHash.identity().update([short], [pattern(3)], pureHashes))).toBe(
      false,
    );
  });

  it('leaves a vector as it was when an element is added and removed again', () => {
    const vector = LtHash.identity().update([pattern(5)], [], pureHashes);
    const before = vector.toBytes();
    vector.update([pattern(70)], [pattern(70)], pureHashes);
    expect(hex(vector.toBytes())).toBe(hex(before));
  });
});
