import { bytesToBigintBE } from './bytes';
import { CryptoError, ErrorCode } from './errors';
import { CURVE_ORDER, nobleSecp256k1 } from './noble';

export const PRIVATE_KEY_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = 33;

/** A fresh private key from the platform's CSPRNG. */
export function randomPrivateKey(): Uint8Array {
  return nobleSecp256k1().utils.randomSecretKey();
}

/** 32 bytes holding a scalar in [1, n-1]. */
export function isValidPrivateKey(key: Uint8Array): boolean {
  if (!(key instanceof Uint8Array) || key.length !== PRIVATE_KEY_LENGTH) return false;
  const scalar = bytesToBigintBE(key);
  return scalar > 0n && scalar < CURVE_ORDER;
}

/** The 33-byte compressed public key of a private key. */
export function getPublicKey(privateKey: Uint8Array): Uint8Array {
  assertPrivateKey(privateKey);
  return nobleSecp256k1().getPublicKey(privateKey, true);
}

/** A 33-byte compressed encoding of a point on the curve. */
export function isValidPublicKey(publicKey: Uint8Array): boolean {
  return (
    publicKey instanceof Uint8Array &&
    publicKey.length === PUBLIC_KEY_LENGTH &&
    nobleSecp256k1().utils.isValidPublicKey(publicKey, true)
  );
}

export function assertPrivateKey(privateKey: Uint8Array, param?: string): void {
  if (!isValidPrivateKey(privateKey)) {
    // Never echo the key itself.
    throw new CryptoError(
      ErrorCode.INVALID_KEY,
      'INVALID_PRIVATE_KEY',
      'private key must be 32 bytes holding a scalar in [1, n-1] of secp256k1',
      { param },
    );
  }
}
