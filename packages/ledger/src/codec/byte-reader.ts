import { DecodeError } from '../errors';

/** What every empty byte field decodes to: no bytes to share, none to change. */
const NO_BYTES = new Uint8Array(0);

/** The longest amount encoding: 32 big-endian bytes (a 256-bit value). */
export const MAX_AMOUNT_BYTES = 32;

/** The same memory as a plain Uint8Array (LevelDB hands out Buffers). */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(bytes) === Uint8Array.prototype
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Sequential little-endian reader over a byte array. Every malformed input ends in a DecodeError
 * (ChainError INVALID_DATA), never a RangeError, so decoders are safe on untrusted bytes.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  private pos: number;

  constructor(bytes: Uint8Array, offset = 0) {
    // A Buffer's slice() is a view, not a copy: read through a plain Uint8Array.
    this.bytes = plainBytes(bytes);
    this.pos = offset;
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  private need(n: number, what: string): void {
    if (this.pos + n > this.bytes.length) {
      throw new DecodeError(
        'TRUNCATED',
        `unexpected end of data reading ${what} at byte ${this.pos} (need ${n}, have ${this.remaining})`,
      );
    }
  }

  u8(what = 'u8'): number {
    this.need(1, what);
    return this.bytes[this.pos++]!;
  }

  u16(what = 'u16'): number {
    this.need(2, what);
    const v = this.bytes[this.pos]! | (this.bytes[this.pos + 1]! << 8);
    this.pos += 2;
    return v;
  }

  u32(what = 'u32'): number {
    this.need(4, what);
    const b = this.bytes;
    const p = this.pos;
    const v = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
    this.pos += 4;
    return v;
  }

  /** A view (not a copy) of the next n bytes. */
  bytesView(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A copy of the next n bytes, safe to keep after the source buffer is reused. */
  bytesCopy(n: number, what = 'bytes'): Uint8Array {
    return this.bytesView(n, what).slice();
  }

  /** `u16 length || bytes`, copied. */
  varBytes16(what = 'bytes', maxLength = 0xffff): Uint8Array {
    const length = this.lengthU16(what);
    if (length > maxLength) {
      throw new DecodeError('TOO_LONG', `${what} is ${length} bytes, at most ${maxLength} allowed`);
    }
    return length === 0 ? NO_BYTES : this.bytesCopy(length, what);
  }

  /** The u16 length prefix of `what` (its name for errors is built only on an error). */
  private lengthU16(what: string): number {
    if (this.pos + 2 > this.bytes.length) this.need(2, `${what} length`);
    const v = this.bytes[this.pos]! | (this.bytes[this.pos + 1]! << 8);
    this.pos += 2;
    return v;
  }

  /** `u16 length || utf8`. */
  string16(what = 'string'): string {
    const raw = this.bytesView(this.u16(`${what} length`), what);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      throw new DecodeError('BAD_UTF8', `${what} is not valid UTF-8`);
    }
  }

  /** `u8 length || big-endian minimal unsigned bytes` (0 is length 0; at most 32 bytes). */
  amount(what = 'amount'): bigint {
    if (this.pos >= this.bytes.length) this.need(1, `${what} length`);
    const length = this.bytes[this.pos++]!;
    if (length > MAX_AMOUNT_BYTES) {
      throw new DecodeError(
        'BAD_AMOUNT_ENCODING',
        `${what} is ${length} bytes long, at most ${MAX_AMOUNT_BYTES} allowed`,
      );
    }
    this.need(length, what);
    const start = this.pos;
    const bytes = this.bytes;
    if (length > 0 && bytes[start] === 0) {
      throw new DecodeError('BAD_AMOUNT_ENCODING', `${what} has a leading zero byte (not minimal)`);
    }
    this.pos += length;
    // Six bytes at a time in a Number (exact below 2^53), the shortest chunk first: an amount of up
    // to 6 bytes is one bigint, an 18-decimal amount (9-10 bytes) four.
    let v = 0n;
    let i = 0;
    let chunk = length % 6 || 6;
    while (i < length) {
      let n = 0;
      for (const end = i + chunk; i < end; i++) n = n * 256 + bytes[start + i]!;
      v = v === 0n ? BigInt(n) : (v << 48n) | BigInt(n);
      chunk = 6;
    }
    return v;
  }

  /** Throws unless every byte was consumed. */
  end(what = 'data'): void {
    if (this.pos !== this.bytes.length) {
      throw new DecodeError(
        'TRAILING_BYTES',
        `${this.bytes.length - this.pos} unexpected trailing bytes after ${what}`,
      );
    }
  }
}
