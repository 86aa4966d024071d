import { bytesToBigintBE } from './bytes';
import { CryptoError, ErrorCode } from './errors';
import { assertPrivateKey } from './keys';
import { HALF_CURVE_ORDER, nobleSecp256k1 } from './noble';

/**
 * ECDSA over secp256k1 on prehashed 32-byte messages. Implementations must agree byte for byte:
 * deterministic RFC 6979 nonces, low-S signatures, and high-S signatures rejected on verify.
 */
export interface Secp256k1Backend {
  readonly name: string;
  /** 64-byte compact r || s, low-S, RFC 6979 nonce. Throws CryptoError on a bad key or hash length. */
  sign(hash32: Uint8Array, privateKey: Uint8Array): Uint8Array;
  /**
   * Never throws: false for malformed input, a high-S signature or a wrong signature. The key is
   * compressed (33 bytes) or what `expandPublicKey` made of one (65 bytes).
   */
  verify(sig64: Uint8Array, hash32: Uint8Array, publicKey: Uint8Array): boolean;
  /**
   * The uncompressed (65-byte) form of a compressed key, or null when it is not a point: for a
   * backend that verifies faster against it (libsecp256k1 skips a square root per verify), absent
   * where it would not help.
   */
  expandPublicKey?(publicKey33: Uint8Array): Uint8Array | null;
}

/** Compressed and uncompressed SEC1 public key lengths. */
export const COMPRESSED_KEY_LENGTH = 33;
const UNCOMPRESSED_KEY_LENGTH = 65;

/**
 * A compressed key, or an uncompressed one with its 0x04 prefix: libsecp256k1 would also parse the
 * "hybrid" 0x06/0x07 forms, which noble refuses, and backends must agree on every input.
 */
export function isPublicKeyBytes(value: unknown): value is Uint8Array {
  return (
    value instanceof Uint8Array &&
    (value.length === COMPRESSED_KEY_LENGTH ||
      (value.length === UNCOMPRESSED_KEY_LENGTH && value[0] === 0x04))
  );
}

export const SIGNATURE_LENGTH = 64;
export const RECOVERABLE_SIGNATURE_LENGTH = 65;

export const pureSecp256k1: Secp256k1Backend = {
  name: 'noble',
  sign(hash32, privateKey) {
    assertHash32(hash32);
    assertPrivateKey(privateKey);
    return nobleSecp256k1().sign(hash32, privateKey, { prehash: false, lowS: true });
  },
  verify(sig64, hash32, publicKey) {
    if (!isBytes(sig64, SIGNATURE_LENGTH) || !isBytes(hash32, 32) || !isPublicKeyBytes(publicKey)) {
      return false;
    }
    try {
      return nobleSecp256k1().verify(sig64, hash32, publicKey, { prehash: false, lowS: true });
    } catch {
      return false;
    }
  },
};

/** 65 bytes: recovery id (0-3) || r || s, low-S, RFC 6979 nonce. */
export function signRecoverable(hash32: Uint8Array, privateKey: Uint8Array): Uint8Array {
  assertHash32(hash32);
  assertPrivateKey(privateKey);
  return nobleSecp256k1().sign(hash32, privateKey, {
    prehash: false,
    lowS: true,
    format: 'recovered',
  });
}

/**
 * The recovery id (0-3) that a recoverable signature's first byte stands for: 0-3 as signed here,
 * 27-30 (Bitcoin's message header and Ethereum's `v`: 27 + id) and 31-34 (Bitcoin's header for a
 * compressed key: 31 + id); null for any other byte. The compression flag means nothing here:
 * addresses always hash the compressed key.
 */
export function recoveryIdOf(byte: number): number | null {
  if (byte >= 0 && byte <= 3) return byte;
  if (byte >= 27 && byte <= 34) return (byte - 27) & 3;
  return null;
}

/**
 * The 33-byte compressed key that produced a recoverable signature (recovery byte || r || s; the
 * byte in any form `recoveryIdOf` reads), or null when the signature is malformed, high-S (not a
 * valid signature here) or recovers no point.
 */
export function recoverPublicKey(sig65: Uint8Array, hash32: Uint8Array): Uint8Array | null {
  if (!isBytes(sig65, RECOVERABLE_SIGNATURE_LENGTH) || !isBytes(hash32, 32)) return null;
  const recoveryId = recoveryIdOf(sig65[0]!);
  if (recoveryId === null || isHighS(sig65.subarray(1))) return null;
  const normalized = sig65.slice();
  normalized[0] = recoveryId;
  try {
    return nobleSecp256k1().recoverPublicKey(normalized, hash32, { prehash: false });
  } catch {
    return null;
  }
}

/** s > n/2 in a 64-byte compact signature: the malleable twin of a canonical signature. */
export function isHighS(sig64: Uint8Array): boolean {
  return bytesToBigintBE(sig64.subarray(32, 64)) > HALF_CURVE_ORDER;
}

function isBytes(value: unknown, length: number): value is Uint8Array {
  return value instanceof Uint8Array && value.length === length;
}

function assertHash32(hash32: Uint8Array): void {
  if (!isBytes(hash32, 32)) {
    throw new CryptoError(ErrorCode.INVALID_DATA, 'INVALID_HASH', 'message hash must be 32 bytes');
  }
}
