import type { Hashes } from './hashes';
import { KERNEL_MAX_INPUT, type LtHashKernel, ltHashKernel } from './lthash-kernel';

/**
 * LtHash16 (Bellare-Micciancio's lattice hash as instantiated by Lewi et al., "Securing Update
 * Propagation with Homomorphic Hashing", 2019, and Solana's accounts lattice hash, SIMD-0215): a
 * multiset hash whose value is a vector of 1024 lanes of u16. The element of a byte string is its
 * BLAKE3 output read to 2048 bytes (as Solana's), lane i being bytes 2i, 2i+1 little-endian; a multiset's
 * value is the lane-wise sum mod 2^16 of its elements. Adding and removing an element is one
 * vector addition or subtraction, in any order, so the value follows a set that changes by parts.
 */
export const LT_HASH_LANES = 1024;
export const LT_HASH_BYTES = 2 * LT_HASH_LANES;
const WORDS = LT_HASH_LANES / 2;

// Two lanes per 32-bit word, added without a carry between them (SWAR): the low 15 bits of each
// lane add normally, their top bits by XOR. Measured at about half the time of a Uint16Array loop.
const LOW = 0x7fff7fff;
const HIGH = 0x80008000;

// Words are read in the platform's byte order; lanes are defined little-endian.
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** An element vector, as 512 words of two lanes (see `ltHashElement`). */
export type LtHashElement = Uint32Array;

/** The element of `data`: its 2048-byte BLAKE3 output as lanes. */
export function ltHashElement(hashes: Hashes, data: Uint8Array): LtHashElement {
  return wordsOf(hashes.blake3(data, LT_HASH_BYTES));
}

function wordsOf(bytes: Uint8Array): Uint32Array {
  if (!LITTLE_ENDIAN) throw new Error('LtHash needs a little-endian platform');
  if (bytes.length !== LT_HASH_BYTES) throw new Error(`an LtHash vector is ${LT_HASH_BYTES} bytes`);
  // A view when aligned (the digests of hash-wasm and @noble are), a copy otherwise.
  return bytes.byteOffset % 4 === 0
    ? new Uint32Array(bytes.buffer, bytes.byteOffset, WORDS)
    : new Uint32Array(bytes.slice().buffer);
}

export class LtHash {
  private constructor(private readonly words: Uint32Array) {}

  /** The value of the empty multiset: every lane 0. */
  static identity(): LtHash {
    return new LtHash(new Uint32Array(WORDS));
  }

  /** The vector `toBytes` wrote (2048 bytes, lanes little-endian); the bytes are copied. */
  static fromBytes(bytes: Uint8Array): LtHash {
    return new LtHash(wordsOf(bytes.slice()));
  }

  add(element: LtHashElement): this {
    const w = this.words;
    for (let i = 0; i < WORDS; i++) {
      const x = w[i]!;
      const y = element[i]!;
      w[i] = ((x & LOW) + (y & LOW)) ^ ((x ^ y) & HIGH);
    }
    return this;
  }

  remove(element: LtHashElement): this {
    const w = this.words;
    for (let i = 0; i < WORDS; i++) {
      const x = w[i]!;
      const y = element[i]!;
      // The top bit set in each lane of x absorbs the borrow of that lane's low bits.
      w[i] = ((x | HIGH) - (y & LOW)) ^ ((x ^ ~y) & HIGH);
    }
    return this;
  }

  /**
   * Adds the elements of the entries `added` and removes those of `removed` (their bytes, hashed
   * here): in one pass of the WebAssembly kernel (lthash-kernel.ts) where the runtime has it, with
   * `hashes.blake3` for the rest (entries over KERNEL_MAX_INPUT bytes; all of them when `kernel`
   * is null).
   */
  update(
    added: readonly Uint8Array[],
    removed: readonly Uint8Array[],
    hashes: Hashes,
    kernel: LtHashKernel | null = ltHashKernel() ?? null,
  ): this {
    if (kernel !== null) kernel.update(this.words, added, removed);
    const elsewhere = (entry: Uint8Array) => kernel === null || entry.length > KERNEL_MAX_INPUT;
    for (const entry of added) if (elsewhere(entry)) this.add(ltHashElement(hashes, entry));
    for (const entry of removed) if (elsewhere(entry)) this.remove(ltHashElement(hashes, entry));
    return this;
  }

  /** Adds another multiset's value (the union of both multisets). */
  combine(other: LtHash): this {
    return this.add(other.words);
  }

  copy(): LtHash {
    return new LtHash(this.words.slice());
  }

  equals(other: LtHash): boolean {
    const a = this.words;
    const b = other.words;
    for (let i = 0; i < WORDS; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /** The 2048-byte vector, lane i at bytes 2i, 2i+1 little-endian. */
  toBytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, this.words.byteOffset, LT_HASH_BYTES).slice();
  }
}
