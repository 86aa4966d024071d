import { bytesToHex, concatBytes, hexToBytes, isHex, readU16le, u16le } from './bytes';
import { CryptoError, ErrorCode } from './errors';
import { assertPrivateKey, isValidPrivateKey } from './keys';
import { nobleSecp256k1 } from './noble';

/** PascalCoin's curve id for secp256k1. */
export const SECP256K1_CURVE_ID = 714;
const COORDINATE_LENGTH = 32;

/**
 * PascalCoin's raw private key: curve id u16le || length u16le || scalar, in hex
 * (`ca022000` + 64 hex for a 32-byte scalar).
 */
export function encodePrivateKey(privateKey: Uint8Array): string {
  assertPrivateKey(privateKey);
  return bytesToHex(concatBytes(u16le(SECP256K1_CURVE_ID), u16le(COORDINATE_LENGTH), privateKey));
}

/**
 * Accepts the encoded form or a bare 64-hex scalar, either case, optional `0x`. PascalCoin writes
 * scalars without leading zero bytes, so an encoded length below 32 is accepted and left-padded.
 * Errors never contain the input.
 */
export function decodePrivateKey(text: string, param?: string): Uint8Array {
  const fail = (why: string): never => {
    throw new CryptoError(
      ErrorCode.INVALID_KEY,
      'INVALID_PRIVATE_KEY',
      `${param === undefined ? 'private key' : `'${param}'`} ${why}`,
      { param },
    );
  };
  const body =
    typeof text === 'string' && (text.startsWith('0x') || text.startsWith('0X'))
      ? text.slice(2)
      : text;
  if (!isHex(body)) {
    return fail("must be hex: 'ca022000' followed by 64 hex characters, or 64 hex characters");
  }
  const bytes = hexToBytes(body);
  let scalar: Uint8Array;
  if (bytes.length === COORDINATE_LENGTH) {
    scalar = bytes;
  } else {
    if (bytes.length < 5 || readU16le(bytes, 0) !== SECP256K1_CURVE_ID) {
      return fail("must be 'ca022000' followed by 64 hex characters, or 64 hex characters");
    }
    const length = readU16le(bytes, 2);
    if (length < 1 || length > COORDINATE_LENGTH || bytes.length !== 4 + length) {
      return fail('has a wrong length field');
    }
    scalar = leftPad(bytes.subarray(4), COORDINATE_LENGTH);
  }
  if (!isValidPrivateKey(scalar)) return fail('is out of range for secp256k1');
  return scalar;
}

/** PascalCoin's raw public key: `ca02 || 2000 || X || 2000 || Y`, 140 hex characters. */
export function encodePublicKey(publicKey33: Uint8Array): string {
  const point = parsePoint(publicKey33);
  if (point === null) {
    throw new CryptoError(
      ErrorCode.INVALID_KEY,
      'INVALID_PUBLIC_KEY',
      'public key must be a 33-byte point',
    );
  }
  const uncompressed = point.toBytes(false);
  return bytesToHex(
    concatBytes(
      u16le(SECP256K1_CURVE_ID),
      u16le(COORDINATE_LENGTH),
      uncompressed.subarray(1, 33),
      u16le(COORDINATE_LENGTH),
      uncompressed.subarray(33, 65),
    ),
  );
}

/**
 * Decodes PascalCoin's raw public key to the 33-byte compressed form and checks that the point is on
 * the curve. Coordinates shorter than 32 bytes (PascalCoin drops leading zeros) are accepted.
 */
export function decodePublicKey(hex: string, param?: string): Uint8Array {
  const fail = (why: string): never => {
    throw new CryptoError(
      ErrorCode.INVALID_KEY,
      'INVALID_PUBLIC_KEY',
      `${param === undefined ? 'public key' : `'${param}'`} ${why}`,
      { param },
    );
  };
  if (!isHex(hex)) return fail("must be hex: 'ca022000' + X (64 hex) + '2000' + Y (64 hex)");
  const bytes = hexToBytes(hex);
  if (bytes.length < 2 || readU16le(bytes, 0) !== SECP256K1_CURVE_ID) {
    return fail("must start with the secp256k1 curve id 'ca02'");
  }
  let offset = 2;
  const coordinates: Uint8Array[] = [];
  for (let i = 0; i < 2; i++) {
    if (offset + 2 > bytes.length) return fail('is truncated');
    const length = readU16le(bytes, offset);
    offset += 2;
    if (length < 1 || length > COORDINATE_LENGTH || offset + length > bytes.length) {
      return fail('has a wrong coordinate length');
    }
    coordinates.push(leftPad(bytes.subarray(offset, offset + length), COORDINATE_LENGTH));
    offset += length;
  }
  if (offset !== bytes.length) return fail('has trailing bytes');
  const uncompressed = concatBytes(Uint8Array.of(4), coordinates[0]!, coordinates[1]!);
  const point = parsePoint(uncompressed);
  if (point === null) return fail('is not a point on secp256k1');
  return point.toBytes(true);
}

type NoblePoint = ReturnType<ReturnType<typeof nobleSecp256k1>['Point']['fromBytes']>;

function parsePoint(bytes: Uint8Array): NoblePoint | null {
  if (!(bytes instanceof Uint8Array) || (bytes.length !== 33 && bytes.length !== 65)) return null;
  try {
    return nobleSecp256k1().Point.fromBytes(bytes).assertValidity();
  } catch {
    return null;
  }
}

function leftPad(bytes: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(bytes, length - bytes.length);
  return out;
}
