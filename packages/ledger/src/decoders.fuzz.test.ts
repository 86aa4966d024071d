import { ChainError } from '@chain/crypto';
import { nativeHashes } from '@chain/crypto/native';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock } from './block/block';
import type { Chain } from './chain/chain';
import { decodeProducerList } from './chain/storage/state-checksum';
import { createDevGenesis, parseGenesis, serializeGenesis } from './genesis';
import { createRegistry } from './operation/ledger-registry';
import {
  decodeOperation,
  decodeRawOperations,
  encodeRawOperations,
  encodeUnsignedOperation,
  OPERATION_SIGNATURE_LENGTH,
} from './operation/operation';
import { decodeAccount } from './state/account';
import { decodeUndo } from './state/block-changes';
import {
  COIN,
  devWallet,
  fundAndActivate,
  openTempChain,
  testWallet,
  transferTo,
} from './testing/temp-chain';

// Fuzzing every decoder of bytes the ledger reads (operations, raw blobs, blocks, stored accounts,
// undo records, producer lists, genesis documents) and the chain's entry points for untrusted bytes
// (submitOperation, importBlock): arbitrary and mutated inputs decode, or fail with a ChainError,
// never another exception; a refused block or operation leaves the chain as it was. FUZZ_RUNS scales
// the case counts (docs/reliability.md).
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const registry = createRegistry();

/** One edit of a byte string, as data so a failing case prints short. */
type Mutation =
  | { flip: number; xor: number }
  | { truncate: number }
  | { insert: number; bytes: Uint8Array }
  | { remove: number; count: number }
  | { u32: number; value: number }
  | { append: Uint8Array };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ flip: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ truncate: fc.nat() }),
  fc.record({ insert: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ remove: fc.nat(), count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({
    u32: fc.nat(),
    value: fc.constantFrom(0, 1, 0x7fffffff, 0xffffffff, 0xfffffffe, 76, 256),
  }),
  fc.record({ append: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
);

function mutate(input: Uint8Array, m: Mutation): Uint8Array {
  const bytes = Uint8Array.from(input);
  const at = (n: number) => (bytes.length === 0 ? 0 : n % bytes.length);
  if ('flip' in m) {
    if (bytes.length > 0) bytes[at(m.flip)] = bytes[at(m.flip)]! ^ m.xor;
    return bytes;
  }
  if ('truncate' in m) return bytes.slice(0, at(m.truncate));
  if ('insert' in m) {
    const i = at(m.insert);
    return Uint8Array.from([...bytes.subarray(0, i), ...m.bytes, ...bytes.subarray(i)]);
  }
  if ('remove' in m) {
    const i = at(m.remove);
    return Uint8Array.from([...bytes.subarray(0, i), ...bytes.subarray(i + m.count)]);
  }
  if ('u32' in m) {
    if (bytes.length < 4) return bytes;
    new DataView(bytes.buffer).setUint32(m.u32 % (bytes.length - 3), m.value, true);
    return bytes;
  }
  return Uint8Array.from([...bytes, ...m.append]);
}

/** Arbitrary bytes, or one of `samples` with one to three edits. */
function bytesLike(samples: readonly Uint8Array[]): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 400 }),
    fc
      .tuple(fc.constantFrom(...samples), fc.array(mutationArb, { minLength: 1, maxLength: 3 }))
      .map(([sample, edits]) => edits.reduce(mutate, sample)),
  );
}

/** Runs `decode`: any outcome but a thrown non-ChainError passes. */
function decodesOrRefuses<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof ChainError)) {
      throw new Error(`not a ChainError: ${String(error)}`, { cause: error });
    }
    return undefined;
  }
}

let chain: Chain;
let cleanup: () => Promise<void>;
let follower: Chain;
let followerCleanup: () => Promise<void>;
let operations: Uint8Array[];
let blocks: Uint8Array[];
const alice = testWallet('fuzz alice');

beforeAll(async () => {
  ({ chain, cleanup } = await openTempChain());
  await fundAndActivate(chain, alice, 10n * COIN);
  for (let i = 1; i <= 3; i++) {
    await chain.signAndSubmit({
      optype: 2,
      signer: alice.address,
      privateKey: alice.privateKey,
      body: transferTo(devWallet.address, BigInt(i) * COIN, new Uint8Array(i * 7).fill(i)),
    });
  }
  await chain.produceBlock(devWallet.privateKey);
  blocks = [];
  for (let height = 1; height < chain.blockCount(); height++) {
    blocks.push((await chain.getBlockBytes(height))!);
  }
  operations = blocks.flatMap((bytes) =>
    decodeBlock(bytes, nativeHashes).operations.map((op) => op.slice()),
  );
  // The follower holds every block but the last, which the import fuzz mutates.
  ({ chain: follower, cleanup: followerCleanup } = await openTempChain());
  for (const bytes of blocks.slice(0, -1)) await follower.importBlock(bytes);
});

afterAll(async () => {
  await followerCleanup?.();
  await cleanup?.();
});

describe('operation decoders', () => {
  it('decodeOperation: a ChainError or a canonical operation', () => {
    fc.assert(
      fc.property(bytesLike(operations), (bytes) => {
        const op = decodesOrRefuses(() => decodeOperation(bytes, registry, nativeHashes));
        if (op === undefined) return;
        // Canonical: the decoded operation encodes back to exactly the bytes it came from.
        const type = registry.get(op.optype, op.subtype)!;
        const unsigned = encodeUnsignedOperation(op, type, op.body);
        expect(Buffer.from([...unsigned, ...op.signature])).toEqual(Buffer.from(bytes));
        expect(op.signature).toHaveLength(OPERATION_SIGNATURE_LENGTH);
      }),
      { numRuns: RUNS },
    );
  });

  it('decodeRawOperations: a ChainError or the operations of the blob', () => {
    const blobs = [encodeRawOperations(operations), encodeRawOperations(operations.slice(0, 1))];
    fc.assert(
      fc.property(bytesLike(blobs), (blob) => {
        const ops = decodesOrRefuses(() => decodeRawOperations(blob, registry, nativeHashes));
        if (ops === undefined) return;
        expect(Buffer.from(encodeRawOperations(ops.map((op) => op.bytes)))).toEqual(
          Buffer.from(blob),
        );
      }),
      { numRuns: RUNS },
    );
  });
});

describe('block decoder', () => {
  it('decodeBlock: a ChainError or a block that encodes back to its bytes', () => {
    fc.assert(
      fc.property(bytesLike(blocks), (bytes) => {
        const block = decodesOrRefuses(() => decodeBlock(bytes, nativeHashes));
        if (block === undefined) return;
        expect(
          Buffer.from(encodeBlock(block.headerBytes, block.signature, block.operations)),
        ).toEqual(Buffer.from(bytes));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('stored records', () => {
  it('decodeAccount, decodeUndo and decodeProducerList: a ChainError or a value', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        decodesOrRefuses(() => decodeAccount(1, bytes));
        decodesOrRefuses(() => decodeUndo(bytes));
        decodesOrRefuses(() => decodeProducerList(bytes));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('genesis documents', () => {
  it('parseGenesis: a ChainError or a genesis, for arbitrary and edited documents', () => {
    const dev = JSON.parse(serializeGenesis(createDevGenesis())) as Record<string, unknown>;
    const edited = fc
      .tuple(fc.constantFrom(...Object.keys(dev)), fc.jsonValue({ maxDepth: 2 }))
      .map(([key, value]) => ({ ...dev, [key]: value }));
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 3 }), edited, fc.string()), (document) => {
        decodesOrRefuses(() => parseGenesis(document));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('chain entry points for untrusted bytes', () => {
  it('importBlock refuses mutated and arbitrary blocks with a ChainError, leaving the chain as it was', async () => {
    const last = blocks.at(-1)!;
    const head = Buffer.from(follower.head().hash).toString('hex');
    const root = Buffer.from(follower.stateRoot()).toString('hex');
    await fc.assert(
      fc.asyncProperty(bytesLike([last]), async (bytes) => {
        if (Buffer.from(bytes).equals(Buffer.from(last))) return;
        await expect(follower.importBlock(bytes)).rejects.toBeInstanceOf(ChainError);
        expect(Buffer.from(follower.head().hash).toString('hex')).toBe(head);
        expect(Buffer.from(follower.stateRoot()).toString('hex')).toBe(root);
      }),
      { numRuns: RUNS },
    );
    // The genuine block still imports after all that.
    await follower.importBlock(last);
    expect(follower.head().hash).toEqual(chain.head().hash);
  });

  it('submitOperation refuses mutated and arbitrary operations with a ChainError', async () => {
    const pending = chain.pendingCount();
    await fc.assert(
      fc.asyncProperty(bytesLike(operations), async (bytes) => {
        try {
          await chain.submitOperation(bytes, { local: false });
        } catch (error) {
          if (!(error instanceof ChainError)) throw error;
        }
      }),
      { numRuns: RUNS },
    );
    // Mined operations replayed, or edits whose signature no longer verifies: nothing got in.
    expect(chain.pendingCount()).toBe(pending);
  });
});
