import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addressFromHash160,
  addressFromPublicKey,
  decodeAddress,
  isValidAddress,
  normalizeAddress,
  tokenAddress,
} from './address';
import { bytesToHex, hexToBytes } from './bytes';
import { CryptoError, ErrorCode } from './errors';
import { nativeHashes } from './native';

/** The address construction of DESIGN §2 recomputed with OpenSSL, as an independent reference. */
function referenceAddress(prefix: string, hash20: Buffer): string {
  const checksum = createHash('sha256')
    .update(Buffer.concat([Buffer.from(prefix, 'utf8'), hash20]))
    .digest()
    .subarray(0, 3);
  return prefix + hash20.toString('hex') + checksum.toString('hex');
}

const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
// HASH160 of G: the hash inside Bitcoin address 1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH (private key 1).
const G_HASH160 = '751e76e8199196d454941c45d1b3a323f1433bd6';

const hash20Arbitrary = fc.uint8Array({ minLength: 20, maxLength: 20 });
const prefixArbitrary = fc.stringMatching(/^[A-Za-z0-9]{2}$/);

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(CryptoError);
    expect((error as CryptoError).code).toBe(ErrorCode.INVALID_ACCOUNT);
    return (error as CryptoError).reason;
  }
}

describe('wallet addresses', () => {
  it('of the key 1 on the CH network: HASH160(G) and the SHA-256 checksum of prefix || hash', () => {
    const address = addressFromPublicKey('CH', hexToBytes(G));
    expect(address).toHaveLength(48);
    expect(address.slice(0, 42)).toBe(`CH${G_HASH160}`);
    expect(address).toBe(referenceAddress('CH', Buffer.from(G_HASH160, 'hex')));
  });

  it('match the reference construction for any prefix and hash', () => {
    fc.assert(
      fc.property(prefixArbitrary, hash20Arbitrary, (prefix, hash) => {
        expect(addressFromHash160(prefix, hash)).toBe(referenceAddress(prefix, Buffer.from(hash)));
      }),
    );
  });

  it('round trip through decode, in either hex case', () => {
    fc.assert(
      fc.property(prefixArbitrary, hash20Arbitrary, fc.boolean(), (prefix, hash, upper) => {
        const address = addressFromHash160(prefix, hash);
        const typed = upper ? prefix + address.slice(2).toUpperCase() : address;
        expect(decodeAddress(typed, prefix)).toEqual({ prefix, hash160: hash });
        expect(normalizeAddress(typed, prefix)).toBe(address);
        expect(isValidAddress(typed)).toBe(true);
      }),
    );
  });

  it('decode again after a first check gives the same answer, and callers cannot change it', () => {
    const address = addressFromPublicKey('CH', hexToBytes(G));
    const first = decodeAddress(address, 'CH');
    first.hash160.fill(0);
    expect(bytesToHex(decodeAddress(address, 'CH').hash160)).toBe(G_HASH160);
    expect(reasonOf(() => decodeAddress(address, 'XY'))).toBe('WRONG_NETWORK_PREFIX');
  });

  it('checksum catches every single-character change', () => {
    fc.assert(
      fc.property(
        hash20Arbitrary,
        fc.nat({ max: 47 }),
        fc.constantFrom(...'0123456789abcdefABCDEFGHZz'),
        (hash, position, replacement) => {
          const address = addressFromHash160('CH', hash);
          const original = address[position]!;
          fc.pre(original.toLowerCase() !== replacement.toLowerCase() || position < 2);
          fc.pre(original !== replacement);
          const changed = address.slice(0, position) + replacement + address.slice(position + 1);
          expect(isValidAddress(changed)).toBe(false);
          expect(isValidAddress(changed, 'CH')).toBe(false);
          const expected =
            position < 2
              ? 'WRONG_NETWORK_PREFIX'
              : /[0-9a-fA-F]/.test(replacement)
                ? 'BAD_ADDRESS_CHECKSUM'
                : 'INVALID_ADDRESS_FORMAT';
          expect(reasonOf(() => decodeAddress(changed, 'CH'))).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('checks the checksum with node:crypto as with the pure hashes', () => {
    fc.assert(
      fc.property(hash20Arbitrary, fc.nat({ max: 7 }), (hash, position) => {
        const address = addressFromHash160('CH', hash, nativeHashes);
        expect(address).toBe(addressFromHash160('CH', hash));
        expect(decodeAddress(address, 'CH', 'receiver', nativeHashes).hash160).toEqual(hash);
        // A checksum digit changed (the cache knows only addresses that passed).
        const at = address.length - 1 - position;
        const digit = address[at] === '0' ? '1' : '0';
        const changed = address.slice(0, at) + digit + address.slice(at + 1);
        expect(reasonOf(() => decodeAddress(changed, 'CH', 'receiver', nativeHashes))).toBe(
          'BAD_ADDRESS_CHECKSUM',
        );
      }),
      { numRuns: 200 },
    );
  });

  it('refuses each kind of bad input with its reason, naming the param', () => {
    const good = addressFromPublicKey('CH', hexToBytes(G));
    expect(reasonOf(() => decodeAddress(good.slice(0, -1)))).toBe('INVALID_ADDRESS_FORMAT');
    expect(reasonOf(() => decodeAddress(`${good}0`))).toBe('INVALID_ADDRESS_FORMAT');
    expect(reasonOf(() => decodeAddress(`${good.slice(0, -1)}g`))).toBe('INVALID_ADDRESS_FORMAT');
    expect(reasonOf(() => decodeAddress(`C-${good.slice(2)}`))).toBe('INVALID_ADDRESS_FORMAT');
    expect(reasonOf(() => decodeAddress(` ${good.slice(1)}`))).toBe('INVALID_ADDRESS_FORMAT');
    expect(reasonOf(() => decodeAddress(''))).toBe('INVALID_ADDRESS_FORMAT');
    expect(reasonOf(() => decodeAddress(7 as unknown as string))).toBe('INVALID_ADDRESS_FORMAT');
    expect(reasonOf(() => decodeAddress(good, 'XY'))).toBe('WRONG_NETWORK_PREFIX');
    // The prefix is part of the checksum: relabelling an address for another network is caught
    // even when no network is expected.
    expect(reasonOf(() => decodeAddress(`XY${good.slice(2)}`))).toBe('BAD_ADDRESS_CHECKSUM');
    // The prefix itself is case-sensitive.
    expect(reasonOf(() => decodeAddress(`ch${good.slice(2)}`, 'CH'))).toBe('WRONG_NETWORK_PREFIX');

    try {
      decodeAddress(good, 'XY', 'receiver');
      expect.unreachable();
    } catch (error) {
      expect((error as CryptoError).param).toBe('receiver');
      expect((error as CryptoError).message).toContain('receiver');
      expect((error as CryptoError).message).toContain("'CH'");
      expect((error as CryptoError).message).toContain("'XY'");
    }
    try {
      decodeAddress(good.slice(0, 47), undefined, 'wallet');
      expect.unreachable();
    } catch (error) {
      expect((error as CryptoError).message).toContain('48');
      expect((error as CryptoError).message).toContain('47');
    }
  });

  it('refuses a bad prefix or hash length when building', () => {
    expect(() => addressFromHash160('C', new Uint8Array(20))).toThrow(CryptoError);
    expect(() => addressFromHash160('CHX', new Uint8Array(20))).toThrow(CryptoError);
    expect(() => addressFromHash160('C_', new Uint8Array(20))).toThrow(CryptoError);
    expect(() => addressFromHash160('CH', new Uint8Array(19))).toThrow(CryptoError);
    expect(() => addressFromPublicKey('CH', hexToBytes(G).subarray(1))).toThrow(CryptoError);
  });
});

describe('token addresses', () => {
  it('hash "token" || creator account u32le || creator n_operation u32le', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (account, nOperation) => {
          const preimage = Buffer.alloc(13);
          preimage.write('token', 0, 'utf8');
          preimage.writeUInt32LE(account, 5);
          preimage.writeUInt32LE(nOperation, 9);
          const hash = createHash('ripemd160')
            .update(createHash('sha256').update(preimage).digest())
            .digest();
          const address = tokenAddress('CH', account, nOperation);
          expect(address).toBe(referenceAddress('CH', hash));
          expect(isValidAddress(address, 'CH')).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('differ by creator and by n_operation', () => {
    expect(tokenAddress('CH', 1, 2)).not.toBe(tokenAddress('CH', 2, 1));
    expect(tokenAddress('CH', 0, 1)).not.toBe(tokenAddress('CH', 0, 2));
  });

  it('refuse creator numbers outside u32', () => {
    expect(() => tokenAddress('CH', -1, 0)).toThrow(CryptoError);
    expect(() => tokenAddress('CH', 0, 2 ** 32)).toThrow(CryptoError);
    expect(() => tokenAddress('CH', 1.5, 0)).toThrow(CryptoError);
  });
});

describe('decoded hash', () => {
  it('is a copy, not a view that a caller could use to mutate shared state', () => {
    const address = addressFromPublicKey('CH', hexToBytes(G));
    const { hash160 } = decodeAddress(address);
    expect(bytesToHex(hash160)).toBe(G_HASH160);
    expect(hash160.byteLength).toBe(hash160.buffer.byteLength);
  });
});
