import { ErrorCode, type Hashes, utf8ToBytes } from '@chain/crypto';
import type { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';
import { LedgerError } from '../errors';

/**
 * What an operation is on the wire, without state or storage: the part of the ledger that an
 * offline signer (`@chain/offline`, browsers) needs. docs/wire-format.md describes these bytes.
 */

/** The signer field of an activation that creates its account (the address is not on chain yet). */
export const NEW_ACCOUNT = 0xffffffff;
export const OPERATION_SIGNATURE_LENGTH = 64;
/** Largest operation accepted on the wire (bounds the work a garbage blob can cause). */
export const MAX_OPERATION_BYTES = 64 * 1024;
/** optype 2, signer 4, n_operation 4, zero fee 1, subtype 1, empty body, signature 64. */
export const MIN_OPERATION_BYTES = 76;

const OP_DOMAIN = utf8ToBytes('chain-op');

/** The fields every operation carries, whatever its type. */
export interface OperationHeader {
  optype: number;
  subtype: number;
  /** Signer account number, or NEW_ACCOUNT. */
  signer: number;
  nOperation: number;
  fee: bigint;
}

/**
 * The byte layout of one operation type's body. An `OperationType` (registry.ts) is a codec plus
 * its rules; an offline signer needs the codec only.
 */
export interface OperationCodec<B = unknown> {
  readonly optype: number;
  readonly subtype: number;
  readonly name: string;
  encodeBody(body: B): Uint8Array;
  /** Reads exactly the body; throw ChainError (INVALID_DATA) on malformed input. */
  decodeBody(reader: ByteReader): B;
}

/** `optype u16le || signer u32le || nOperation u32le || fee amount || subtype u8 || body`. */
export function encodeUnsignedOperation<B>(
  header: OperationHeader,
  codec: Pick<OperationCodec<B>, 'encodeBody'>,
  body: B,
): Uint8Array {
  const bodyBytes = codec.encodeBody(body);
  const w = new ByteWriter(32 + bodyBytes.length + OPERATION_SIGNATURE_LENGTH);
  w.u16(header.optype).u32(header.signer).u32(header.nOperation).amount(header.fee, 'fee');
  w.u8(header.subtype).bytes(bodyBytes);
  return w.finish();
}

/** The message a signer signs: sha256('chain-op' || genesis hash || unsigned operation bytes). */
export function operationSigningHash(
  genesisHash: Uint8Array,
  unsigned: Uint8Array,
  hashes: Hashes,
): Uint8Array {
  const length = OP_DOMAIN.length + genesisHash.length + unsigned.length;
  // One message buffer for every call (sha256 has read it when it returns): a block hashes one
  // message per operation, and a fresh buffer each time is memory the collector must free.
  if (signingMessage.length < length)
    signingMessage = new Uint8Array(Math.max(length, 2 * signingMessage.length));
  signingMessage.set(OP_DOMAIN, 0);
  signingMessage.set(genesisHash, OP_DOMAIN.length);
  signingMessage.set(unsigned, OP_DOMAIN.length + genesisHash.length);
  return hashes.sha256(signingMessage.subarray(0, length));
}

let signingMessage = new Uint8Array(1024);

/** The signed operation: its unsigned bytes followed by the 64-byte signature. */
export function appendSignature(unsigned: Uint8Array, signature: Uint8Array): Uint8Array {
  if (!(signature instanceof Uint8Array) || signature.length !== OPERATION_SIGNATURE_LENGTH) {
    throw new LedgerError(
      ErrorCode.INVALID_DATA,
      'BAD_SIGNATURE',
      `an operation signature is ${OPERATION_SIGNATURE_LENGTH} bytes (r || s)`,
      { param: 'signature' },
    );
  }
  const bytes = new Uint8Array(unsigned.length + OPERATION_SIGNATURE_LENGTH);
  bytes.set(unsigned, 0);
  bytes.set(signature, unsigned.length);
  return bytes;
}

/** `count u32le || operation bytes*` (rawSendTo, InfoRaw, excuteRaw). */
export function encodeRawOperations(ops: readonly Uint8Array[]): Uint8Array {
  const w = new ByteWriter(4 + ops.reduce((n, op) => n + op.length, 0));
  w.u32(ops.length);
  for (const op of ops) w.bytes(op);
  return w.finish();
}
