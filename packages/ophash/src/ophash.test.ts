import { createHash } from 'node:crypto';
import { bytesToHex, ChainError, ErrorCode, hexToBytes, pureHashes } from '@chain/crypto';
import { nativeHashes } from '@chain/crypto/native';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpHashError } from './errors';
import {
  buildOpHash,
  decodeOpHash,
  type OpHashParts,
  operationDigest,
  opHashIdentity,
  opHashIdentityOf,
} from './ophash';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const partsArbitrary = fc.record({
  block: u32,
  account: u32,
  nOperation: u32,
  digest: fc.uint8Array({ minLength: 20, maxLength: 20 }),
});
const DIGEST = '000102030405060708090a0b0c0d0e0f10111213';

function expectOpHashError(fn: () => unknown, param: string): void {
  try {
    fn();
    expect.unreachable();
  } catch (error) {
    expect(error).toBeInstanceOf(OpHashError);
    expect(error).toBeInstanceOf(ChainError);
    expect((error as OpHashError).code).toBe(ErrorCode.INVALID_DATA);
    expect((error as OpHashError).reason).toBe('INVALID_OPHASH');
    expect((error as OpHashError).param).toBe(param);
    expect((error as OpHashError).message).toContain(`'${param}'`);
  }
}

describe('operationDigest', () => {
  it('is RIPEMD160(SHA256(bytes)), checked against OpenSSL, with pure and native hashes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const expected = createHash('ripemd160')
          .update(createHash('sha256').update(bytes).digest())
          .digest('hex');
        expect(bytesToHex(operationDigest(bytes))).toBe(expected);
        expect(bytesToHex(operationDigest(bytes, pureHashes))).toBe(expected);
        expect(bytesToHex(operationDigest(bytes, nativeHashes))).toBe(expected);
      }),
    );
  });

  it('of the empty operation is HASH160("")', () => {
    // RIPEMD160(SHA256("")), Bitcoin's well-known hash of the empty string.
    expect(bytesToHex(operationDigest(new Uint8Array(0)))).toBe(
      'b472a266d0bd89c13706a4132ccfb16f7c3b9fcb',
    );
  });
});

describe('buildOpHash', () => {
  // Hand-encoded: each integer as its 4 little-endian bytes, then the 20-byte digest.
  it.each([
    [{ block: 1, account: 2, nOperation: 3 }, `010000000200000003000000${DIGEST}`],
    [{ block: 0, account: 0, nOperation: 0 }, `000000000000000000000000${DIGEST}`],
    [
      { block: 0x12345678, account: 0xabcdef01, nOperation: 256 },
      ['78563412', '01efcdab', '00010000', DIGEST].join(''),
    ],
    [
      { block: 0xffffffff, account: 1000, nOperation: 65536 },
      ['ffffffff', 'e8030000', '00000100', DIGEST].join(''),
    ],
  ])('lays out %o little-endian', (numbers, expected) => {
    const parts = { ...numbers, digest: hexToBytes(DIGEST) };
    expect(buildOpHash(parts)).toBe(expected);
    expect(decodeOpHash(expected)).toEqual(parts);
  });

  it('gives 64 lowercase hex characters that decode back to the parts', () => {
    fc.assert(
      fc.property(partsArbitrary, (parts) => {
        const ophash = buildOpHash(parts);
        expect(ophash).toMatch(/^[0-9a-f]{64}$/);
        expect(decodeOpHash(ophash)).toEqual(parts);
        expect(decodeOpHash(ophash.toUpperCase())).toEqual(parts);
      }),
    );
  });

  it('refuses parts that do not fit', () => {
    const digest = hexToBytes(DIGEST);
    const bad: OpHashParts[] = [
      { block: -1, account: 0, nOperation: 0, digest },
      { block: 2 ** 32, account: 0, nOperation: 0, digest },
      { block: 0, account: 1.5, nOperation: 0, digest },
      { block: 0, account: 0, nOperation: Number.NaN, digest },
      { block: 0, account: 0, nOperation: 0, digest: digest.subarray(1) },
      { block: 0, account: 0, nOperation: 0, digest: new Uint8Array(32) },
    ];
    for (const parts of bad) {
      expect(() => buildOpHash(parts)).toThrow(OpHashError);
    }
  });
});

describe('decodeOpHash', () => {
  it('refuses wrong lengths and non-hex, naming the param', () => {
    const good = `010000000200000003000000${DIGEST}`;
    const cases = [
      '',
      good.slice(0, -1),
      good.slice(0, -2),
      `${good}00`,
      `${good.slice(0, -1)}g`,
      `0x${good.slice(2)}`,
      ` ${good.slice(1)}`,
      `0x${good}`,
    ];
    for (const text of cases) expectOpHashError(() => decodeOpHash(text, 'ophash'), 'ophash');
    expectOpHashError(() => decodeOpHash(good.slice(2), 'hash'), 'hash');
    expectOpHashError(() => decodeOpHash(42 as unknown as string), 'ophash');
  });
});

describe('opHashIdentity', () => {
  it('is the same for the pending (block 0) and the mined ophash of one operation', () => {
    fc.assert(
      fc.property(partsArbitrary, u32, (parts, block) => {
        const pending = buildOpHash({ ...parts, block: 0 });
        const mined = buildOpHash({ ...parts, block });
        expect(opHashIdentity(pending)).toBe(opHashIdentity(mined));
        expect(opHashIdentity(mined.toUpperCase())).toBe(opHashIdentity(parts));
        // It is the ophash without its first 8 hex characters (the block).
        expect(opHashIdentity(parts)).toBe(mined.slice(8));
      }),
    );
  });

  it('is what opHashIdentityOf builds from the parts and the digest in hex', () => {
    fc.assert(
      fc.property(partsArbitrary, (parts) => {
        const digestHex = Buffer.from(parts.digest).toString('hex');
        expect(opHashIdentityOf(parts.account, parts.nOperation, digestHex)).toBe(
          opHashIdentity(parts),
        );
      }),
    );
  });

  it('differs when account, n_operation or digest differ', () => {
    const digest = hexToBytes(DIGEST);
    const base = opHashIdentity({ block: 5, account: 1, nOperation: 1, digest });
    expect(opHashIdentity({ block: 5, account: 2, nOperation: 1, digest })).not.toBe(base);
    expect(opHashIdentity({ block: 5, account: 1, nOperation: 2, digest })).not.toBe(base);
    const other = digest.slice();
    other[19] = 0xff;
    expect(opHashIdentity({ block: 5, account: 1, nOperation: 1, digest: other })).not.toBe(base);
    expect(base).toBe(`0100000001000000${DIGEST}`);
  });

  it('refuses a malformed ophash string', () => {
    expectOpHashError(() => opHashIdentity('abc'), 'ophash');
    expectOpHashError(() => opHashIdentity('abc', 'ophash_param'), 'ophash_param');
  });
});
