import { BLAKE3_LTHASH_WASM } from './blake3-lthash.wasm';

/**
 * The elements of many entries summed into an LtHash vector in one call to a small WebAssembly
 * module (blake3-lthash.wat): BLAKE3's extendable output computed four blocks at a time with SIMD
 * and summed where it is computed. An element costs about 1 us this way where hash-wasm's BLAKE3
 * took 4.5 us (each call's setup, and its 2 KiB output copied out to be summed in JavaScript);
 * docs/decisions.md says why it is written by hand.
 */

/** Longest input the module hashes (one BLAKE3 chunk); a longer one is hashed elsewhere. */
export const KERNEL_MAX_INPUT = 1024;

const ELEMENT_BYTES = 2048;
const WORDS = ELEMENT_BYTES / 4;
/** Inputs packed per call; their bytes (at most KERNEL_MAX_INPUT each) follow the descriptors. */
const CALL_INPUTS = 512;
const DESCRIPTOR_BYTES = 16;
const ADD = 1;
const SUBTRACT = 2;

interface KernelExports {
  memory: WebAssembly.Memory;
  ACC: WebAssembly.Global;
  IO: WebAssembly.Global;
  elements(descriptors: number, count: number): void;
}

/**
 * Where word n of a vector (lanes 2n, 2n+1) lies in the module's ACC: output block b = n / 16 is
 * lane b % 4 of group b / 4, its word k = n % 16 the group's vector k.
 */
const TRANSPOSED = Uint16Array.from({ length: WORDS }, (_, n) => {
  const block = n >> 4;
  return (block >> 2) * 64 + (n & 15) * 4 + (block & 3);
});

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export class LtHashKernel {
  private readonly io: number;
  private readonly inputs: number;
  private readonly scratch: number;
  private readonly bytes: Uint8Array;
  private readonly words: Uint32Array;
  private readonly acc: Uint32Array;

  private constructor(private readonly kernel: KernelExports) {
    this.io = kernel.IO.value as number;
    this.inputs = this.io + CALL_INPUTS * DESCRIPTOR_BYTES;
    this.scratch = this.inputs + CALL_INPUTS * KERNEL_MAX_INPUT;
    const needed = this.scratch + ELEMENT_BYTES;
    const have = kernel.memory.buffer.byteLength;
    // Grown once, here: the views below stay valid (growing detaches the buffer they view).
    if (needed > have) kernel.memory.grow(Math.ceil((needed - have) / 65_536));
    this.bytes = new Uint8Array(kernel.memory.buffer);
    this.words = new Uint32Array(kernel.memory.buffer);
    this.acc = new Uint32Array(kernel.memory.buffer, kernel.ACC.value as number, WORDS);
  }

  /** A kernel, or undefined where WebAssembly or its SIMD is missing (the caller falls back). */
  static create(): LtHashKernel | undefined {
    try {
      const bytes = decodeBase64(BLAKE3_LTHASH_WASM);
      if (!WebAssembly.validate(bytes)) return undefined;
      const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
      return new LtHashKernel(instance.exports as unknown as KernelExports);
    } catch {
      return undefined;
    }
  }

  /**
   * Adds to `vector` (512 words, two lanes each, the platform's byte order) the elements of
   * `added` and subtracts those of `removed`. Inputs longer than KERNEL_MAX_INPUT are skipped:
   * the caller sums them.
   */
  update(vector: Uint32Array, added: readonly Uint8Array[], removed: readonly Uint8Array[]): void {
    const acc = this.acc;
    for (let n = 0; n < WORDS; n++) acc[TRANSPOSED[n]!] = vector[n]!;
    let count = 0;
    let at = this.inputs;
    const put = (input: Uint8Array, op: number) => {
      if (input.length > KERNEL_MAX_INPUT) return;
      if (count === CALL_INPUTS) {
        this.kernel.elements(this.io, count);
        count = 0;
        at = this.inputs;
      }
      this.bytes.set(input, at);
      const d = (this.io + count * DESCRIPTOR_BYTES) >> 2;
      this.words[d] = at;
      this.words[d + 1] = input.length;
      this.words[d + 2] = op;
      this.words[d + 3] = 0;
      at += input.length;
      count++;
    };
    for (const input of added) put(input, ADD);
    for (const input of removed) put(input, SUBTRACT);
    if (count > 0) this.kernel.elements(this.io, count);
    for (let n = 0; n < WORDS; n++) vector[n] = acc[TRANSPOSED[n]!]!;
  }

  /** The element of `input` (at most KERNEL_MAX_INPUT bytes): its 2048-byte BLAKE3 output. */
  element(input: Uint8Array): Uint8Array {
    if (input.length > KERNEL_MAX_INPUT) {
      throw new RangeError(`the kernel hashes at most ${KERNEL_MAX_INPUT} bytes`);
    }
    this.bytes.set(input, this.inputs);
    const d = this.io >> 2;
    this.words[d] = this.inputs;
    this.words[d + 1] = input.length;
    this.words[d + 2] = 0;
    this.words[d + 3] = this.scratch;
    this.kernel.elements(this.io, 1);
    return this.bytes.slice(this.scratch, this.scratch + ELEMENT_BYTES);
  }
}

let shared: LtHashKernel | null | undefined;

/** This thread's kernel, made on first use; undefined where it cannot run. */
export function ltHashKernel(): LtHashKernel | undefined {
  if (shared === undefined) shared = LtHashKernel.create() ?? null;
  return shared ?? undefined;
}
