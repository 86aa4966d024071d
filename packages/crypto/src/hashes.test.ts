import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesToHex, utf8ToBytes } from './bytes';
import { hash160, keccak256, pureHashes, ripemd160, sha256 } from './hashes';
import { nativeHashes } from './native';

const hex = (bytes: Uint8Array) => bytesToHex(bytes);

describe('known-answer vectors', () => {
  // FIPS 180-2 appendix B / NIST CSRC examples.
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
  ])('SHA-256(%j)', (input, expected) => {
    expect(hex(sha256(utf8ToBytes(input)))).toBe(expected);
    expect(hex(pureHashes.sha256(utf8ToBytes(input)))).toBe(expected);
    expect(hex(nativeHashes.sha256(utf8ToBytes(input)))).toBe(expected);
  });

  it('SHA-256 of one million "a" (FIPS 180-2 B.3)', () => {
    const input = utf8ToBytes('a'.repeat(1_000_000));
    const expected = 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0';
    expect(hex(sha256(input))).toBe(expected);
    expect(hex(nativeHashes.sha256(input))).toBe(expected);
  });

  // The RIPEMD-160 authors' test vectors (Dobbertin, Bosselaers, Preneel).
  it.each([
    ['', '9c1185a5c5e9fc54612808977ee8f548b2258d31'],
    ['a', '0bdc9d2d256b3ee9daae347be6f4dc835a467ffe'],
    ['abc', '8eb208f7e05d987a9b044a8e98c6b087f15a0bfc'],
    ['message digest', '5d0689ef49d2fae572b881b123a85ffa21595f36'],
    ['abcdefghijklmnopqrstuvwxyz', 'f71c27109c692c1b56bbdceb5b9d2865b3708dbc'],
  ])('RIPEMD-160(%j)', (input, expected) => {
    expect(hex(ripemd160(utf8ToBytes(input)))).toBe(expected);
    expect(hex(pureHashes.ripemd160(utf8ToBytes(input)))).toBe(expected);
    expect(hex(nativeHashes.ripemd160(utf8ToBytes(input)))).toBe(expected);
  });

  // Keccak team's / Ethereum's well-known values (keccak256("") is Ethereum's empty code hash).
  it.each([
    ['', 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'],
    ['abc', '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45'],
  ])('Keccak-256(%j)', (input, expected) => {
    expect(hex(keccak256(utf8ToBytes(input)))).toBe(expected);
  });

  it('HASH160 of the compressed generator G (Bitcoin address 1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH)', () => {
    const g = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
    expect(hex(hash160(Buffer.from(g, 'hex')))).toBe('751e76e8199196d454941c45d1b3a323f1433bd6');
    expect(hex(hash160(Buffer.from(g, 'hex'), nativeHashes))).toBe(
      '751e76e8199196d454941c45d1b3a323f1433bd6',
    );
  });
});

describe('agreement with node:crypto (OpenSSL)', () => {
  it('sha256, ripemd160 and hash160 on random input, pure and native', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        const sha = createHash('sha256').update(data).digest('hex');
        const rmd = createHash('ripemd160').update(data).digest('hex');
        const h160 = createHash('ripemd160')
          .update(createHash('sha256').update(data).digest())
          .digest('hex');
        expect(hex(sha256(data))).toBe(sha);
        expect(hex(nativeHashes.sha256(data))).toBe(sha);
        expect(hex(ripemd160(data))).toBe(rmd);
        expect(hex(nativeHashes.ripemd160(data))).toBe(rmd);
        expect(hex(hash160(data))).toBe(h160);
      }),
    );
  });

  it('native hashes return plain 32/20-byte Uint8Arrays that stay intact', () => {
    const a = nativeHashes.sha256(Uint8Array.of(1));
    const b = nativeHashes.sha256(Uint8Array.of(2));
    expect(a).toBeInstanceOf(Uint8Array);
    expect(a).toHaveLength(32);
    expect(nativeHashes.ripemd160(Uint8Array.of(1))).toHaveLength(20);
    expect(hex(a)).toBe(createHash('sha256').update(Uint8Array.of(1)).digest('hex'));
    expect(hex(b)).toBe(createHash('sha256').update(Uint8Array.of(2)).digest('hex'));
  });
});
