import { createHash } from 'node:crypto';
import { ChainError } from '@chain/crypto';
import { nativeHashes } from '@chain/crypto/native';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STEP_ITEMS } from '../state/steps';
import {
  type BlockHeader,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  operationsRoot,
  operationsRootSteps,
  ZERO_HASH,
} from './block';

const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

const headerArb: fc.Arbitrary<BlockHeader> = fc.record({
  height: fc.integer({ min: 0, max: 0xffffffff }),
  prevHash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  timestamp: fc.integer({ min: 0, max: 0xffffffff }),
  producer: fc.integer({ min: 0, max: 0xffffffff }),
  opsRoot: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  stateRoot: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  ver: fc.integer({ min: 0, max: 0xffff }),
  ver_a: fc.integer({ min: 0, max: 0xffff }),
  payload: fc.uint8Array({ maxLength: 255 }),
  producers: fc
    .uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 5 })
    .chain((accounts) =>
      fc.tuple(
        ...accounts
          .sort((a, b) => a - b)
          .map((account) =>
            fc.record({
              account: fc.constant(account),
              publicKey: fc.option(
                fc
                  .uint8Array({ minLength: 33, maxLength: 33 })
                  .filter((key) => key.some((b) => b !== 0)),
                { nil: null },
              ),
            }),
          ),
      ),
    ),
});

describe('block codec', () => {
  it('lays the header out as the format says (hand-checked offsets)', () => {
    const header: BlockHeader = {
      height: 1,
      prevHash: new Uint8Array(32).fill(0xaa),
      timestamp: 0x01020304,
      producer: 5,
      opsRoot: new Uint8Array(32).fill(0xbb),
      stateRoot: new Uint8Array(32).fill(0xcc),
      ver: 2,
      ver_a: 3,
      payload: Uint8Array.of(0xee),
      producers: [],
    };
    const bytes = encodeBlockHeader(header);
    expect(bytes.length).toBe(4 + 32 + 4 + 4 + 32 + 32 + 2 + 2 + 2 + 1 + 2);
    expect([...bytes.subarray(0, 4)]).toEqual([1, 0, 0, 0]);
    expect([...bytes.subarray(36, 40)]).toEqual([4, 3, 2, 1]);
    expect([...bytes.subarray(40, 44)]).toEqual([5, 0, 0, 0]);
    expect([...bytes.subarray(108, 115)]).toEqual([2, 0, 3, 0, 1, 0, 0xee]);
  });

  it('carries a producer set after the payload: count, then account and 33-byte key each', () => {
    const key = new Uint8Array(33).fill(7);
    const base: BlockHeader = {
      height: 1,
      prevHash: ZERO_HASH,
      timestamp: 0,
      producer: 0,
      opsRoot: ZERO_HASH,
      stateRoot: ZERO_HASH,
      ver: 0,
      ver_a: 0,
      payload: new Uint8Array(0),
      producers: [
        { account: 3, publicKey: key },
        { account: 9, publicKey: null },
      ],
    };
    const bytes = encodeBlockHeader(base);
    const at = 4 + 32 + 4 + 4 + 32 + 32 + 2 + 2 + 2;
    expect(bytes.length).toBe(at + 2 + 2 * 37);
    expect([...bytes.subarray(at, at + 6)]).toEqual([2, 0, 3, 0, 0, 0]);
    expect([...bytes.subarray(at + 6, at + 39)]).toEqual([...key]);
    expect([...bytes.subarray(at + 39, at + 43)]).toEqual([9, 0, 0, 0]);
    expect(bytes.subarray(at + 43).every((b) => b === 0)).toBe(true);
    const decoded = decodeBlock(encodeBlock(bytes, new Uint8Array(64), []), nativeHashes);
    expect(decoded.header.producers).toEqual(base.producers);
    // Members out of order (or repeated) have no canonical encoding: refused.
    const swapped = encodeBlockHeader({ ...base, producers: [...base.producers].reverse() });
    expect(() => decodeBlock(encodeBlock(swapped, new Uint8Array(64), []), nativeHashes)).toThrow(
      /ascending/,
    );
  });

  it('round-trips blocks; the hash is sha256(header || signature)', () => {
    fc.assert(
      fc.property(
        headerArb,
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 120 }), { maxLength: 6 }),
        (header, signature, ops) => {
          const headerBytes = encodeBlockHeader(header);
          const bytes = encodeBlock(headerBytes, signature, ops);
          const block = decodeBlock(bytes, nativeHashes);
          expect(block.header).toEqual(header);
          expect(block.signature).toEqual(signature);
          expect(block.operations.map((o) => Uint8Array.from(o))).toEqual(ops);
          expect(block.hash).toEqual(sha(headerBytes, signature));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('decodeBlock throws only ChainError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        try {
          decodeBlock(bytes, nativeHashes);
        } catch (error) {
          expect(error).toBeInstanceOf(ChainError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('operations root', () => {
  const d = [1, 2, 3].map((i) => new Uint8Array(20).fill(i));
  it('is the zero hash without operations', () => {
    expect(operationsRoot([], nativeHashes)).toEqual(ZERO_HASH);
  });
  it('hashes a single digest with itself', () => {
    expect(operationsRoot([d[0]!], nativeHashes)).toEqual(sha(d[0]!, d[0]!));
  });
  it('pairs leaves and duplicates an odd last node', () => {
    expect(operationsRoot([d[0]!, d[1]!], nativeHashes)).toEqual(sha(d[0]!, d[1]!));
    expect(operationsRoot(d, nativeHashes)).toEqual(sha(sha(d[0]!, d[1]!), sha(d[2]!, d[2]!)));
  });
  it('in steps, yields between them and gives the same root as in one pass', () => {
    // A block's 10,000: a step every STEP_ITEMS pairs, an odd count at several levels.
    const digests = Array.from({ length: 10_001 }, (_, i) => sha(new Uint8Array([i, i >> 8])));
    const steps = operationsRootSteps(digests, nativeHashes);
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    expect(yields).toBeGreaterThanOrEqual(Math.floor(5_000 / STEP_ITEMS));
    expect(step.value).toEqual(operationsRoot(digests, nativeHashes));
    // The pairs' tree, computed here level by level.
    let level = digests;
    while (level.length > 1) {
      level = Array.from({ length: Math.ceil(level.length / 2) }, (_, i) =>
        sha(level[2 * i]!, level[2 * i + 1] ?? level[2 * i]!),
      );
    }
    expect(step.value).toEqual(level[0]);
  });
});
