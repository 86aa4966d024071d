import { CryptoError, ErrorCode } from './errors';

const HEX_DIGITS = '0123456789abcdef';
const HEX_BODY = /^[0-9a-fA-F]*$/;
/** Value of each hex digit by its character code ('0'-'9', 'a'-'f', 'A'-'F'); 255 elsewhere. */
const HEX_VALUE = (() => {
  const table = new Uint8Array(128).fill(255);
  for (let i = 0; i < 16; i++) {
    table[HEX_DIGITS.charCodeAt(i)] = i;
    table[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i;
  }
  return table;
})();

/**
 * The two digits of every byte, made once: a byte's digits joined on the spot were a string of
 * their own per byte (a digest's ophash and a key's hex, on every operation presented).
 */
const HEX_PAIRS: readonly string[] = Array.from(
  { length: 256 },
  (_, byte) => HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!,
);

/**
 * Node's Buffer, when there is one: its hex is one flat string made in one native call. Joining the
 * pairs in JavaScript makes a string object per pair beyond the first few (V8 joins longer strings
 * as ropes, then flattens them when the text is used): about 670 bytes for a 20-byte key where the
 * Buffer makes 150, and four times the time; every operation has several (its ophash, its
 * receiver's token key). A browser has no Buffer and joins the pairs.
 */
const NODE_BUFFER = (globalThis as { Buffer?: typeof Buffer }).Buffer;
/** Shorter than this, the joined pairs are flat strings already and cost less than a Buffer view. */
const NATIVE_HEX_FROM = 8;

/** Lowercase hex, no prefix. */
export function bytesToHex(bytes: Uint8Array): string {
  if (NODE_BUFFER !== undefined && bytes.length >= NATIVE_HEX_FROM) {
    return NODE_BUFFER.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  }
  return hexByTable(bytes);
}

/** bytesToHex without Buffer (a browser's, and short inputs'). */
export function hexByTable(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX_PAIRS[bytes[i]!]!;
  return out;
}

/**
 * Strict hex decoding: an optional `0x` prefix, then an even number of hex digits in either case.
 * Anything else is refused rather than silently truncated (as `Buffer.from(x, 'hex')` would do).
 */
export function hexToBytes(hex: string, param?: string): Uint8Array {
  if (typeof hex !== 'string') {
    throw new CryptoError(
      ErrorCode.INVALID_DATA,
      'INVALID_HEX',
      `${label(param)} must be a hex string`,
      {
        param,
      },
    );
  }
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (body.length % 2 !== 0) {
    throw new CryptoError(
      ErrorCode.INVALID_DATA,
      'INVALID_HEX',
      `${label(param)} must have an even number of hex digits (got ${body.length})`,
      { param },
    );
  }
  // A table lookup per digit, which also finds a character that is no hex digit: one pass over
  // the text (an excuteRaw blob is kilobytes of hex, already matched once by the RPC layer).
  const out = new Uint8Array(body.length / 2);
  for (let i = 0, j = 0; i < out.length; i++, j += 2) {
    const high = hexValue(body.charCodeAt(j));
    const low = hexValue(body.charCodeAt(j + 1));
    if ((high | low) > 15) {
      throw new CryptoError(
        ErrorCode.INVALID_DATA,
        'INVALID_HEX',
        `${label(param)} must contain only hex digits 0-9, a-f`,
        { param },
      );
    }
    out[i] = (high << 4) | low;
  }
  return out;
}

/** A hex digit's value, or 255 for any other character. */
function hexValue(code: number): number {
  return code < 128 ? HEX_VALUE[code]! : 255;
}

export function isHex(text: unknown): text is string {
  return typeof text === 'string' && text.length % 2 === 0 && HEX_BODY.test(text);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  // Constant time in the contents, so it is also safe for comparing MACs and checksums.
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const encoder = new TextEncoder();

export function utf8ToBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Cryptographically secure random bytes (Web Crypto; available in Node 20 and browsers). */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  // getRandomValues fills at most 65536 bytes per call.
  for (let offset = 0; offset < length; offset += 65536) {
    globalThis.crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + 65536)));
  }
  return out;
}

export const U16_MAX = 0xffff;
export const U32_MAX = 0xffffffff;

export function isU16(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= U16_MAX;
}

export function isU32(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= U32_MAX;
}

/** Two little-endian bytes of an integer in [0, 2^16). */
export function u16le(value: number): Uint8Array {
  if (!isU16(value)) throw new RangeError(`u16 out of range: ${value}`);
  return Uint8Array.of(value & 0xff, value >>> 8);
}

/** Four little-endian bytes of an integer in [0, 2^32). */
export function u32le(value: number): Uint8Array {
  if (!isU32(value)) throw new RangeError(`u32 out of range: ${value}`);
  return Uint8Array.of(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, value >>> 24);
}

/** Eight little-endian bytes of a bigint in [0, 2^64). */
export function u64le(value: bigint): Uint8Array {
  if (value < 0n || value > 0xffffffffffffffffn) throw new RangeError(`u64 out of range: ${value}`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
}

export function readU16le(bytes: Uint8Array, offset = 0): number {
  if (offset < 0 || offset + 2 > bytes.length)
    throw new RangeError('read past the end of the bytes');
  return bytes[offset]! | (bytes[offset + 1]! << 8);
}

export function readU32le(bytes: Uint8Array, offset = 0): number {
  if (offset < 0 || offset + 4 > bytes.length)
    throw new RangeError('read past the end of the bytes');
  return (
    (bytes[offset]! |
      (bytes[offset + 1]! << 8) |
      (bytes[offset + 2]! << 16) |
      (bytes[offset + 3]! << 24)) >>>
    0
  );
}

export function readU64le(bytes: Uint8Array, offset = 0): bigint {
  if (offset < 0 || offset + 8 > bytes.length)
    throw new RangeError('read past the end of the bytes');
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 8).getBigUint64(0, true);
}

/** Big-endian bytes of a non-negative bigint, minimal (0n gives an empty array). */
export function bigintToBytesBE(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('negative value has no unsigned encoding');
  if (value === 0n) return new Uint8Array(0);
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return hexToBytes(hex);
}

/** Big-endian bytes of a non-negative bigint, left-padded to `length`. */
export function bigintToBytesBEPadded(value: bigint, length: number): Uint8Array {
  const minimal = bigintToBytesBE(value);
  if (minimal.length > length) throw new RangeError(`value does not fit in ${length} bytes`);
  const out = new Uint8Array(length);
  out.set(minimal, length - minimal.length);
  return out;
}

export function bytesToBigintBE(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytesToHex(bytes)}`);
}

function label(param: string | undefined): string {
  return param === undefined ? 'value' : `'${param}'`;
}
