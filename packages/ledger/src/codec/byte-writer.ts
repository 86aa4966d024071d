import { ErrorCode } from '@chain/crypto';
import { LedgerError } from '../errors';
import { MAX_AMOUNT_BYTES } from './byte-reader';

const MAX_AMOUNT = (1n << BigInt(MAX_AMOUNT_BYTES * 8)) - 1n;
const encoder = new TextEncoder();

/**
 * Node's Buffer.allocUnsafe where there is one (a slice of its small-buffer pool, no allocation of
 * its own); a plain Uint8Array elsewhere: the codecs also run in browsers (@chain/offline).
 */
const allocate: (n: number) => Uint8Array =
  typeof Buffer === 'function' ? (n) => Buffer.allocUnsafe(n) : (n) => new Uint8Array(n);

/**
 * Growable little-endian writer; `finish()` returns the written bytes as a plain Uint8Array of their
 * own. The working buffer comes from Node's small-buffer pool (a slice, no allocation of its own):
 * state encoding writes several of these per operation.
 */
export class ByteWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = allocate(initialCapacity);
  }

  /** The writer `encode` lends out; undefined while lent (a nested encode makes its own). */
  private static spare: ByteWriter | undefined = new ByteWriter(1024);

  /**
   * `write(writer, value)` on a reused writer, returning a copy of the bytes: for encoders called
   * for every state change of a block, which would otherwise each take a working buffer.
   */
  static encode<T>(write: (w: ByteWriter, value: T) => void, value: T): Uint8Array {
    const w = ByteWriter.spare ?? new ByteWriter();
    ByteWriter.spare = undefined;
    w.pos = 0;
    try {
      write(w, value);
      return w.finish();
    } finally {
      ByteWriter.spare = w;
    }
  }

  get length(): number {
    return this.pos;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < this.pos + n) capacity *= 2;
    const next = allocate(capacity);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(v: number): this {
    checkUint(v, 0xff, 'u8');
    this.reserve(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    checkUint(v, 0xffff, 'u16');
    this.reserve(2);
    this.buf[this.pos++] = v & 0xff;
    this.buf[this.pos++] = v >>> 8;
    return this;
  }

  u32(v: number): this {
    checkUint(v, 0xffffffff, 'u32');
    this.reserve(4);
    const buf = this.buf;
    buf[this.pos++] = v & 0xff;
    buf[this.pos++] = (v >>> 8) & 0xff;
    buf[this.pos++] = (v >>> 16) & 0xff;
    buf[this.pos++] = v >>> 24;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.reserve(b.length);
    // As in finish(): a loop beats set() for keys and hashes.
    if (b.length > 64) this.buf.set(b, this.pos);
    else for (let i = 0; i < b.length; i++) this.buf[this.pos + i] = b[i]!;
    this.pos += b.length;
    return this;
  }

  varBytes16(b: Uint8Array): this {
    return this.u16(b.length).bytes(b);
  }

  string16(s: string): this {
    return this.varBytes16(encoder.encode(s));
  }

  amount(v: bigint, param?: string): this {
    if (typeof v !== 'bigint' || v < 0n || v > MAX_AMOUNT) {
      throw new LedgerError(
        ErrorCode.INVALID_AMOUNT,
        'BAD_AMOUNT',
        `amount must be a bigint between 0 and 2^256-1, got ${String(v)}`,
        param === undefined ? {} : { param },
      );
    }
    if (v === 0n) return this.u8(0);
    const hex = v.toString(16);
    const length = (hex.length + 1) >> 1;
    this.u8(length);
    this.reserve(length);
    // Big-endian: with an odd number of hex digits the first byte holds one.
    let digit = hex.length - 2 * length;
    for (let i = 0; i < length; i++, digit += 2) {
      const high = digit < 0 ? 0 : hexValue(hex.charCodeAt(digit));
      this.buf[this.pos + i] = (high << 4) | hexValue(hex.charCodeAt(digit + 1));
    }
    this.pos += length;
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.pos);
    // A loop beats set() with its subarray view for the short records that dominate.
    if (this.pos > 128) out.set(this.buf.subarray(0, this.pos));
    else for (let i = 0; i < out.length; i++) out[i] = this.buf[i]!;
    return out;
  }
}

/** Value of a lowercase hex digit's char code (bigint toString(16) writes lowercase). */
function hexValue(code: number): number {
  return code <= 57 ? code - 48 : code - 87;
}

function checkUint(v: number, max: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > max) {
    throw new LedgerError(
      ErrorCode.INVALID_DATA,
      'OUT_OF_RANGE',
      `${what} value ${String(v)} is out of range 0..${max}`,
    );
  }
}
