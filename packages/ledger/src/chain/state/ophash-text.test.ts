import { buildOpHash } from '@chain/ophash';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../operation/operation';
import { hashKey } from '../../state/state-layer';
import { opHashText } from './ophash-text';

const u32 = fc.nat({ max: 0xffff_ffff });

function operation(signer: number, nOperation: number, digest: Uint8Array): Operation {
  return { signer, nOperation, digest, digestHex: hashKey(digest) } as unknown as Operation;
}

describe('ophash text', () => {
  it('is what @chain/ophash builds, for any parts (one buffer reused for each)', () => {
    fc.assert(
      fc.property(
        u32,
        u32,
        u32,
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        (block, signer, nOperation, digest) => {
          const op = operation(signer, nOperation, digest);
          expect(opHashText(block, op)).toBe(
            buildOpHash({ block, account: signer, nOperation, digest }),
          );
        },
      ),
    );
  });

  it('reads a digest that is a view into larger bytes', () => {
    const bytes = Uint8Array.from({ length: 40 }, (_, i) => i);
    const digest = bytes.subarray(10, 30);
    expect(opHashText(7, operation(1, 2, digest))).toBe(
      buildOpHash({ block: 7, account: 1, nOperation: 2, digest }),
    );
  });
});
