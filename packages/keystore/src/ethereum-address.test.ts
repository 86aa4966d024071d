import { bytesToHex, getPublicKey, hexToBytes, isValidPrivateKey } from '@chain/crypto';
import { computeAddress } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WIKI_VECTORS } from '../test/fixtures';
import { ethereumAddressOf, normalizeEthereumAddress } from './ethereum-address';

describe('ethereumAddressOf', () => {
  it('gives the address published with the Web3 Secret Storage vector key', () => {
    const publicKey = getPublicKey(hexToBytes(WIKI_VECTORS.privateKey));
    expect(ethereumAddressOf(publicKey)).toBe(WIKI_VECTORS.address);
  });

  it('agrees with ethers for any key', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).filter(isValidPrivateKey),
        (key) => {
          const expected = computeAddress(`0x${bytesToHex(key)}`)
            .slice(2)
            .toLowerCase();
          expect(ethereumAddressOf(getPublicKey(key))).toBe(expected);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('throws on bytes that are not a curve point', () => {
    // x = 2^256 - 1 is above the field prime, so no point has it.
    const beyondField = new Uint8Array(33).fill(0xff);
    beyondField[0] = 2;
    expect(() => ethereumAddressOf(beyondField)).toThrow();
  });
});

describe('normalizeEthereumAddress', () => {
  it('accepts 40 hex digits in either case, with or without 0x', () => {
    const upper = WIKI_VECTORS.address.toUpperCase();
    expect(normalizeEthereumAddress(upper)).toBe(WIKI_VECTORS.address);
    expect(normalizeEthereumAddress(`0x${upper}`)).toBe(WIKI_VECTORS.address);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '0x', 'ab'.repeat(19), 'ab'.repeat(21), 'zz'.repeat(20), 42, null]) {
      expect(normalizeEthereumAddress(bad)).toBeNull();
    }
  });
});
