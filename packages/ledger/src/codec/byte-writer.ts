import { ErrorCode } from '@chain/crypto';
import { LedgerError } from '../errors';
import { MAX_AMOUNT_BYTES } from './byte-reader';

const MAX_AMOUNT = (1n << BigInt(MAX_AMOUNT_BYTES * 8)) - 1n;
const encoder = new TextEncoder();

/** Growable little-endian writer; `finish()` returns the written bytes. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < this.pos + n) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
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
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }

  u32(v: number): this {
    checkUint(v, 0xffffffff, 'u32');
    this.reserve(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
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
    const padded = hex.length % 2 === 0 ? hex : `0${hex}`;
    for (let i = 0; i < length; i++) {
      this.buf[this.pos + i] = Number.parseInt(padded.slice(i * 2, i * 2 + 2), 16);
    }
    this.pos += length;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
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
