import { randomBytes } from 'node:crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blockSigningHash, decodeBlock, encodeBlock, encodeBlockHeader } from '../../block/block';
import {
  devWallet,
  openTempChain,
  produceTransferBlocks,
  testWallet,
} from '../../testing/temp-chain';
import type { Chain } from '../chain';

let source: Chain;
let target: Chain;
const cleanups: Array<() => Promise<void>> = [];
let blocks: Uint8Array[];

beforeEach(async () => {
  [source, target] = await Promise.all([openTempChain(), openTempChain()]).then((pair) => {
    for (const { cleanup } of pair) cleanups.push(cleanup);
    return pair.map(({ chain }) => chain);
  });
  blocks = await produceTransferBlocks(source, 2, testWallet('check-header').address);
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** `bytes` with its header changed as `change` says, signed again by `key`. */
function resigned(
  bytes: Uint8Array,
  change: (header: ReturnType<typeof decodeBlock>['header']) => object,
  key = devWallet.privateKey,
): Uint8Array {
  const block = decodeBlock(bytes, nativeHashes);
  const headerBytes = encodeBlockHeader({ ...block.header, ...change(block.header) });
  const signature = nativeSecp256k1.sign(
    blockSigningHash(target.genesisHash, headerBytes, nativeHashes),
    key,
  );
  return encodeBlock(headerBytes, signature, block.operations);
}

const refusal = (reason: string) => expect.objectContaining({ reason });

describe('checkHeader: a block checked on its header alone', () => {
  it('passes a block on the head, and its child on it while it is being imported', async () => {
    await target.checkHeader(blocks[0]!);
    // Block 2 does not extend the head, but does the block being imported.
    await expect(target.checkHeader(blocks[1]!)).rejects.toThrow(refusal('NOT_NEXT_BLOCK'));
    await target.checkHeader(blocks[1]!, target.inspectBlock(blocks[0]!));
    expect(target.head().height).toBe(0);
  });

  it('refuses a signature that does not verify, and a timestamp far ahead', async () => {
    const forged = resigned(blocks[0]!, () => ({}), new Uint8Array(randomBytes(32)));
    await expect(target.checkHeader(forged)).rejects.toThrow(refusal('BAD_BLOCK_SIGNATURE'));
    const future = resigned(blocks[0]!, (h) => ({ timestamp: h.timestamp + 3600 }));
    await expect(target.checkHeader(future)).rejects.toThrow(refusal('TIMESTAMP_IN_FUTURE'));
    const early = resigned(blocks[1]!, () => ({ timestamp: 0 }));
    await expect(target.checkHeader(early, target.inspectBlock(blocks[0]!))).rejects.toThrow(
      refusal('TIMESTAMP_TOO_EARLY'),
    );
  });

  it('leaves the body to the import: a wrong state root passes the header check only', async () => {
    const badBody = resigned(blocks[0]!, () => ({ stateRoot: new Uint8Array(randomBytes(32)) }));
    await target.checkHeader(badBody);
    await expect(target.importBlock(badBody)).rejects.toThrow(refusal('BAD_STATE_ROOT'));
  });
});
