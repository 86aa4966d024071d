import { createHash } from 'node:crypto';
import {
  ChainError,
  getPublicKey,
  hexToBytes,
  pureHashes,
  pureSecp256k1,
  sha256,
  utf8ToBytes,
} from '@chain/crypto';
import { nativeHashes, nativeSecp256k1 } from '@chain/crypto/native';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activationOperation } from './activation';
import { createRegistry } from './ledger-registry';
import {
  decodeOperation,
  decodeRawOperations,
  encodeRawOperations,
  encodeUnsignedOperation,
  NEW_ACCOUNT,
  type Operation,
  type OperationHeader,
  operationSigningHash,
  peekOperation,
} from './operation';
import type { OperationType } from './registry';
import { type TransferBody, transferOperation } from './transfer';

const registry = createRegistry();
const GENESIS_HASH = sha256(utf8ToBytes('test genesis'));
const KEY = sha256(utf8ToBytes('operation test key'));

function sign<B>(header: OperationHeader, type: OperationType<B>, body: B): Uint8Array {
  const unsigned = encodeUnsignedOperation(header, type, body);
  const sig = nativeSecp256k1.sign(operationSigningHash(GENESIS_HASH, unsigned, nativeHashes), KEY);
  const out = new Uint8Array(unsigned.length + 64);
  out.set(unsigned);
  out.set(sig, unsigned.length);
  return out;
}

const headerArb = fc.record({
  signer: fc.integer({ min: 0, max: 0xffffffff }),
  nOperation: fc.integer({ min: 0, max: 0xffffffff }),
  fee: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
});

const transferArb: fc.Arbitrary<TransferBody> = fc.record({
  receiver: fc.oneof(
    fc.record({ account: fc.integer({ min: 0, max: 0xfffffffe }) }),
    fc.record({ hash160: fc.uint8Array({ minLength: 20, maxLength: 20 }) }),
  ),
  amount: fc.bigInt({ min: 0n, max: (1n << 200n) - 1n }),
  payloadType: fc.integer({ min: 0, max: 255 }),
  payload: fc.uint8Array({ maxLength: 255 }),
});

describe('operation codec', () => {
  it('encodes a transfer as the hand-assembled bytes of the format', () => {
    const unsigned = encodeUnsignedOperation(
      { optype: 2, subtype: 0, signer: 7, nOperation: 3, fee: 10n ** 14n },
      transferOperation,
      { receiver: { account: 9 }, amount: 1n, payloadType: 0, payload: Uint8Array.of(0xab, 0xcd) },
    );
    // optype 2 | signer 7 | n_operation 3 | fee 10^14 = 0x5AF3107A4000 (6 bytes) | subtype 0 |
    // receiver tag 0 + account 9 | amount 1 | payload_type 0 | payload length 2 + abcd
    expect(Buffer.from(unsigned).toString('hex')).toBe(
      '0200' +
        '07000000' +
        '03000000' +
        '065af3107a4000' +
        '00' +
        '0009000000' +
        '0101' +
        '00' +
        '0200abcd',
    );
  });

  it('round-trips transfers and activations; digest and signature check independently', () => {
    fc.assert(
      fc.property(headerArb, transferArb, (h, body) => {
        const bytes = sign({ ...h, optype: 2, subtype: 0 }, transferOperation, body);
        const op = decodeOperation(bytes, registry, nativeHashes) as Operation<TransferBody>;
        expect(op).toMatchObject({ ...h, optype: 2, subtype: 0 });
        expect(op.body.amount).toBe(body.amount);
        expect(op.body.payload).toEqual(body.payload);
        expect(op.body.receiver).toEqual(body.receiver);
        expect(op.bytes).toEqual(bytes);
        // Digest = RIPEMD160(SHA256(bytes)), here by node:crypto vs noble in the codec.
        const sha = createHash('sha256').update(bytes).digest();
        expect(op.digest).toEqual(pureHashes.ripemd160(sha));
      }),
      { numRuns: 50 },
    );
    const publicKey = getPublicKey(KEY);
    const bytes = sign(
      { optype: 5, subtype: 0, signer: NEW_ACCOUNT, nOperation: 1, fee: 0n },
      activationOperation,
      { publicKey },
    );
    const op = decodeOperation(bytes, registry, nativeHashes);
    expect(op.body).toEqual({ publicKey });
    // The signing message, assembled independently, verifies with the pure (noble) backend.
    const message = createHash('sha256')
      .update(Buffer.from('chain-op'))
      .update(GENESIS_HASH)
      .update(bytes.subarray(0, bytes.length - 64))
      .digest();
    expect(pureSecp256k1.verify(op.signature, message, publicKey)).toBe(true);
  });

  it('peekOperation reads the type and signer decoding reads, and never throws', () => {
    fc.assert(
      fc.property(headerArb, transferArb, (h, body) => {
        const bytes = sign({ ...h, optype: 2, subtype: 0 }, transferOperation, body);
        const peek = peekOperation(bytes, registry);
        expect(peek?.type).toBe(transferOperation);
        expect(peek?.signer).toBe(decodeOperation(bytes, registry, nativeHashes).signer);
        expect(peekOperation(bytes.subarray(0, 75), registry)).toBeUndefined();
      }),
      { numRuns: 50 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const peek = peekOperation(bytes, registry);
        if (peek !== undefined) expect(registry.types()).toContain(peek.type);
      }),
    );
  });

  it('round-trips raw blobs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(headerArb, transferArb), { minLength: 1, maxLength: 5 }),
        (items) => {
          const ops = items.map(([h, b]) =>
            sign({ ...h, optype: 2, subtype: 0 }, transferOperation, b),
          );
          const blob = encodeRawOperations(ops);
          expect(blob.subarray(0, 4)).toEqual(Uint8Array.of(ops.length, 0, 0, 0));
          expect(decodeRawOperations(blob, registry, nativeHashes).map((o) => o.bytes)).toEqual(
            ops,
          );
        },
      ),
      { numRuns: 30 },
    );
  });

  it('decoders throw only ChainError on arbitrary and on mutated bytes', () => {
    const valid = sign(
      { optype: 2, subtype: 0, signer: 1, nOperation: 1, fee: 5n },
      transferOperation,
      { receiver: { account: 2 }, amount: 3n, payloadType: 0, payload: new Uint8Array(4) },
    );
    const expectOnlyChainErrors = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(ChainError);
      }
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expectOnlyChainErrors(() => decodeOperation(bytes, registry, nativeHashes));
        expectOnlyChainErrors(() => decodeRawOperations(bytes, registry, nativeHashes));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: valid.length - 1 }),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: valid.length }),
        (at, value, cut) => {
          const mutated = valid.slice(0, cut === 0 ? valid.length : cut);
          if (at < mutated.length) mutated[at] = value;
          expectOnlyChainErrors(() => decodeOperation(mutated, registry, nativeHashes));
          expectOnlyChainErrors(() =>
            decodeRawOperations(encodeRawOperations([mutated]), registry, nativeHashes),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses unknown types, trailing bytes, oversize payloads and empty raw blobs', () => {
    const op = sign(
      { optype: 2, subtype: 0, signer: 1, nOperation: 1, fee: 0n },
      transferOperation,
      { receiver: { account: 2 }, amount: 1n, payloadType: 0, payload: new Uint8Array(0) },
    );
    const unknown = op.slice();
    unknown[0] = 99;
    expect(() => decodeOperation(unknown, registry, nativeHashes)).toThrow(
      expect.objectContaining({ code: 1004, reason: 'UNKNOWN_OPTYPE' }),
    );
    expect(() => decodeOperation(Uint8Array.from([...op, 0]), registry, nativeHashes)).toThrow(
      expect.objectContaining({ code: 1016, reason: 'TRAILING_BYTES' }),
    );
    expect(() =>
      encodeUnsignedOperation(
        { optype: 2, subtype: 0, signer: 1, nOperation: 1, fee: 0n },
        transferOperation,
        { receiver: { account: 2 }, amount: 1n, payloadType: 0, payload: new Uint8Array(256) },
      ),
    ).toThrow(expect.objectContaining({ reason: 'PAYLOAD_TOO_LONG', param: 'payload' }));
    expect(() => decodeRawOperations(hexToBytes('00000000'), registry, nativeHashes)).toThrow(
      expect.objectContaining({ code: 1016 }),
    );
  });
});
