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
  /** Never throws: false for malformed input, a high-S signature or a wrong signature. */
  verify(sig64: Uint8Array, hash32: Uint8Array, publicKey33: Uint8Array): boolean;
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
  verify(sig64, hash32, publicKey33) {
    if (!isBytes(sig64, SIGNATURE_LENGTH) || !isBytes(hash32, 32) || !isBytes(publicKey33, 33)) {
      return false;
    }
    try {
      return nobleSecp256k1().verify(sig64, hash32, publicKey33, { prehash: false, lowS: true });
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
 * The 33-byte compressed key that produced a recoverable signature, or null when the signature is
 * malformed, high-S (not a valid signature here) or recovers no point.
 */
export function recoverPublicKey(sig65: Uint8Array, hash32: Uint8Array): Uint8Array | null {
  if (!isBytes(sig65, RECOVERABLE_SIGNATURE_LENGTH) || !isBytes(hash32, 32)) return null;
  if (isHighS(sig65.subarray(1))) return null;
  try {
    return nobleSecp256k1().recoverPublicKey(sig65, hash32, { prehash: false });
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
