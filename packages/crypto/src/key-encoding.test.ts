import { createECDH } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bigintToBytesBEPadded, bytesToHex } from './bytes';
import { CryptoError, ErrorCode } from './errors';
import {
  decodePrivateKey,
  decodePublicKey,
  encodePrivateKey,
  encodePublicKey,
} from './key-encoding';
import { getPublicKey } from './keys';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
// SEC 2 generator coordinates.
const GX = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const GY = '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const privateKeyArbitrary = fc
  .bigInt({ min: 1n, max: N - 1n })
  .map((scalar) => bigintToBytesBEPadded(scalar, 32));

function expectError(fn: () => unknown, reason: string, param?: string): CryptoError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CryptoError);
    expect((error as CryptoError).code).toBe(ErrorCode.INVALID_KEY);
    expect((error as CryptoError).reason).toBe(reason);
    if (param !== undefined) expect((error as CryptoError).param).toBe(param);
    return error as CryptoError;
  }
  return expect.unreachable();
}

describe('private key encoding', () => {
  it('is ca02 (714 u16le) 2000 (32 u16le) and the scalar', () => {
    expect(encodePrivateKey(bigintToBytesBEPadded(1n, 32))).toBe(`ca022000${'00'.repeat(31)}01`);
  });

  it('round trips, also upper case, bare, 0x-prefixed', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, (key) => {
        const encoded = encodePrivateKey(key);
        expect(encoded).toMatch(/^ca022000[0-9a-f]{64}$/);
        expect(decodePrivateKey(encoded)).toEqual(key);
        expect(decodePrivateKey(encoded.toUpperCase())).toEqual(key);
        expect(decodePrivateKey(bytesToHex(key))).toEqual(key);
        expect(decodePrivateKey(`0x${bytesToHex(key)}`)).toEqual(key);
      }),
    );
  });

  it('accepts PascalCoin scalars written without leading zero bytes', () => {
    // ca02 | length 1 (0100) | scalar 0x05
    expect(decodePrivateKey('ca02010005')).toEqual(bigintToBytesBEPadded(5n, 32));
  });

  it('refuses malformed or out-of-range keys without echoing them', () => {
    const secret = `ca022000${'1a'.repeat(32)}`;
    const cases = [
      secret.slice(0, -1),
      `${secret}00`,
      `cb022000${'1a'.repeat(32)}`, // wrong curve
      `ca022100${'1a'.repeat(32)}`, // length 33
      `ca020000`, // length 0
      `ca022000${'00'.repeat(32)}`, // zero
      `ca022000${N.toString(16)}`, // the group order itself
      'ff'.repeat(32),
      `${'1a'.repeat(31)}zz`,
      '',
      ` ${'1a'.repeat(32)}`,
    ];
    for (const text of cases) {
      const error = expectError(
        () => decodePrivateKey(text, 'private'),
        'INVALID_PRIVATE_KEY',
        'private',
      );
      expect(error.message).toContain("'private'");
      expect(error.message).not.toContain('1a1a');
    }
    expectError(() => decodePrivateKey(undefined as unknown as string), 'INVALID_PRIVATE_KEY');
  });

  it('encode refuses an invalid scalar', () => {
    expectError(() => encodePrivateKey(new Uint8Array(32)), 'INVALID_PRIVATE_KEY');
  });
});

describe('public key encoding', () => {
  it('of G is ca02 2000 Gx 2000 Gy (SEC 2 coordinates)', () => {
    const encoded = encodePublicKey(getPublicKey(bigintToBytesBEPadded(1n, 32)));
    expect(encoded).toBe(`ca022000${GX}2000${GY}`);
    expect(encoded).toHaveLength(140);
  });

  it('carries the coordinates OpenSSL computes, and round trips to the compressed key', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, (key) => {
        const ecdh = createECDH('secp256k1');
        ecdh.setPrivateKey(key);
        const point = ecdh.getPublicKey('hex', 'uncompressed');
        const publicKey = getPublicKey(key);
        const encoded = encodePublicKey(publicKey);
        expect(encoded).toBe(`ca022000${point.slice(2, 66)}2000${point.slice(66)}`);
        expect(decodePublicKey(encoded)).toEqual(publicKey);
        expect(decodePublicKey(encoded.toUpperCase())).toEqual(publicKey);
      }),
      { numRuns: 50 },
    );
  });

  it('accepts coordinates written without leading zero bytes', () => {
    // PascalCoin writes coordinates as OpenSSL BN_bn2bin gives them: a 31-byte X (length 1f00)
    // when X begins with a zero byte.
    const key = findKeyWithLeadingZeroX();
    const encoded = encodePublicKey(getPublicKey(key));
    const x = encoded.slice(8, 72);
    expect(x.startsWith('00')).toBe(true);
    const short = `ca021f00${x.slice(2)}${encoded.slice(72)}`;
    expect(decodePublicKey(short)).toEqual(getPublicKey(key));
  });

  it('refuses malformed encodings and points off the curve', () => {
    const good = `ca022000${GX}2000${GY}`;
    const badY = (BigInt(`0x${GY}`) + 1n).toString(16).padStart(64, '0');
    const cases = [
      good.slice(0, -2),
      `${good}00`,
      `cb02${good.slice(4)}`,
      `ca022100${GX}00${good.slice(72)}`,
      `ca022000${GX}2000${badY}`, // not on the curve
      `02${GX}`, // compressed form is not the PascalCoin encoding
      `ca022000${GX}`,
      'ca02',
      '',
      `${good.slice(0, -1)}g`,
    ];
    for (const text of cases) {
      const error = expectError(() => decodePublicKey(text, 'enc'), 'INVALID_PUBLIC_KEY', 'enc');
      expect(error.message).toContain("'enc'");
    }
    expectError(() => encodePublicKey(new Uint8Array(33)), 'INVALID_PUBLIC_KEY');
  });
});

/** A private key whose public X coordinate starts with a zero byte (about 1 in 256 keys). */
function findKeyWithLeadingZeroX(): Uint8Array {
  for (let scalar = 1n; ; scalar++) {
    const key = bigintToBytesBEPadded(scalar, 32);
    if (getPublicKey(key)[1] === 0) return key;
  }
}
