import { createECDH } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bigintToBytesBEPadded, bytesToHex, hexToBytes } from './bytes';
import { CryptoError, ErrorCode } from './errors';
import { getPublicKey, isValidPrivateKey, isValidPublicKey, randomPrivateKey } from './keys';

// SEC 2 v2, section 2.4.1: order n and generator G of secp256k1.
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const GX = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const GY = '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const key = (scalar: bigint) => bigintToBytesBEPadded(scalar, 32);

const privateKeyArbitrary = fc
  .bigInt({ min: 1n, max: N - 1n })
  .map((scalar) => bigintToBytesBEPadded(scalar, 32));

describe('getPublicKey', () => {
  it('of 1 is the generator G (SEC 2), compressed with prefix 02 since Gy is even', () => {
    expect(bytesToHex(getPublicKey(key(1n)))).toBe(`02${GX}`);
  });

  it('of n-1 is -G: same x, odd y, so prefix 03', () => {
    expect(bytesToHex(getPublicKey(key(N - 1n)))).toBe(`03${GX}`);
  });

  it('of 2 is 2G (well-known value)', () => {
    expect(bytesToHex(getPublicKey(key(2n)))).toBe(
      '02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5',
    );
  });

  it('agrees with OpenSSL (node:crypto ECDH) on random keys', () => {
    fc.assert(
      fc.property(privateKeyArbitrary, (privateKey) => {
        const ecdh = createECDH('secp256k1');
        ecdh.setPrivateKey(privateKey);
        expect(bytesToHex(getPublicKey(privateKey))).toBe(ecdh.getPublicKey('hex', 'compressed'));
      }),
      { numRuns: 50 },
    );
  });

  it('refuses invalid keys with INVALID_KEY / INVALID_PRIVATE_KEY and does not echo them', () => {
    for (const bad of [key(0n), key(N), hexToBytes('ff'.repeat(32)), new Uint8Array(31)]) {
      try {
        getPublicKey(bad);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(CryptoError);
        expect((error as CryptoError).code).toBe(ErrorCode.INVALID_KEY);
        expect((error as CryptoError).reason).toBe('INVALID_PRIVATE_KEY');
        expect((error as CryptoError).message).not.toContain(bytesToHex(bad));
      }
    }
  });
});

describe('private key validity', () => {
  it('is exactly the range [1, n-1] of 32-byte scalars', () => {
    expect(isValidPrivateKey(key(1n))).toBe(true);
    expect(isValidPrivateKey(key(N - 1n))).toBe(true);
    expect(isValidPrivateKey(key(0n))).toBe(false);
    expect(isValidPrivateKey(key(N))).toBe(false);
    expect(isValidPrivateKey(hexToBytes('ff'.repeat(32)))).toBe(false);
    expect(isValidPrivateKey(new Uint8Array(33).fill(1))).toBe(false);
    expect(isValidPrivateKey('01' as unknown as Uint8Array)).toBe(false);
  });

  it('randomPrivateKey gives valid, distinct keys', () => {
    const a = randomPrivateKey();
    const b = randomPrivateKey();
    expect(isValidPrivateKey(a)).toBe(true);
    expect(bytesToHex(a)).not.toBe(bytesToHex(b));
  });
});

describe('public key validity', () => {
  it('accepts points on the curve, 33 bytes only', () => {
    expect(isValidPublicKey(hexToBytes(`02${GX}`))).toBe(true);
    expect(isValidPublicKey(hexToBytes(`04${GX}${GY}`))).toBe(false);
    // x = 5 has no point on secp256k1 (5^3 + 7 = 132 is not a square mod p), hand-checked with
    // Euler's criterion; x = 0 likewise (7 is not a square mod p).
    expect(isValidPublicKey(hexToBytes(`02${'00'.repeat(32)}`))).toBe(false);
    expect(isValidPublicKey(hexToBytes(`05${GX}`))).toBe(false);
  });
});
