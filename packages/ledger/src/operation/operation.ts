import { ChainError, ErrorCode, type Hashes } from '@chain/crypto';
import { operationDigest } from '@chain/ophash';
import { ByteReader } from '../codec/byte-reader';
import { DecodeError, LedgerError } from '../errors';
import { hashKey } from '../state/state-layer';
import type { OperationRegistry, OperationType } from './registry';
import {
  MAX_OPERATION_BYTES,
  MIN_OPERATION_BYTES,
  OPERATION_SIGNATURE_LENGTH,
  type OperationHeader,
} from './wire';

export {
  appendSignature,
  encodeRawOperations,
  encodeUnsignedOperation,
  MAX_OPERATION_BYTES,
  NEW_ACCOUNT,
  OPERATION_SIGNATURE_LENGTH,
  type OperationHeader,
  operationSigningHash,
} from './wire';

/** A decoded, signed operation. `bytes` is its canonical encoding; `digest` its 20-byte digest. */
export interface Operation<B = unknown> extends OperationHeader {
  readonly body: B;
  readonly signature: Uint8Array;
  readonly bytes: Uint8Array;
  readonly digest: Uint8Array;
  /** `digest` in lowercase hex: the operation's key in the mempool and the signature cache. */
  readonly digestHex: string;
}

/** What the header of an encoded operation says, read without decoding its body. */
interface OperationPeek {
  type: OperationType;
  signer: number;
}

/**
 * The type and signer of an encoded operation, or undefined when its header is not that of a
 * registered type or it is too short to hold a signature: enough to check its signature before
 * decoding it (a block queued for import), never a substitute for decoding it.
 */
export function peekOperation(
  bytes: Uint8Array,
  registry: OperationRegistry,
): OperationPeek | undefined {
  // optype u16, signer u32, n_operation u32, fee (u8 length || bytes), subtype u8.
  if (bytes.length < MIN_OPERATION_BYTES) return undefined;
  const feeLength = bytes[10]!;
  const subtypeAt = 11 + feeLength;
  if (subtypeAt >= bytes.length - OPERATION_SIGNATURE_LENGTH) return undefined;
  const type = registry.get(bytes[0]! | (bytes[1]! << 8), bytes[subtypeAt]!);
  if (type === undefined) return undefined;
  const signer = (bytes[2]! | (bytes[3]! << 8) | (bytes[4]! << 16) | (bytes[5]! << 24)) >>> 0;
  return { type, signer };
}

/**
 * Reads one operation at the reader's position (the raw-blob and block decoders share this). With
 * `share`, the operation's `bytes` are a view of the reader's, which the caller keeps unchanged for
 * as long as the operation lives (a block's operations and the block's bytes); else a copy.
 */
function readOperation(
  reader: ByteReader,
  registry: OperationRegistry,
  hashes: Hashes,
  share = false,
): Operation {
  const start = reader.offset;
  const optype = reader.u16('optype');
  const signer = reader.u32('signer');
  const nOperation = reader.u32('n_operation');
  const fee = reader.amount('fee');
  const subtype = reader.u8('subtype');
  const type = registry.get(optype, subtype);
  if (type === undefined) {
    throw new LedgerError(
      ErrorCode.INVALID_OPERATION,
      'UNKNOWN_OPTYPE',
      `unknown operation type ${optype}/${subtype}`,
    );
  }
  const body = decodeBodySafely(type, reader);
  reader.bytesView(OPERATION_SIGNATURE_LENGTH, 'signature');
  const length = reader.offset - start;
  if (length > MAX_OPERATION_BYTES) {
    throw new DecodeError(
      'TOO_LONG',
      `operation is ${length} bytes, at most ${MAX_OPERATION_BYTES}`,
    );
  }
  const whole = start === 0 && reader.offset === reader.bytes.length;
  const bytes = !share
    ? reader.bytes.slice(start, reader.offset)
    : whole
      ? reader.bytes
      : reader.bytes.subarray(start, reader.offset);
  const signature = bytes.subarray(length - OPERATION_SIGNATURE_LENGTH);
  const digest = operationDigest(bytes, hashes);
  return {
    optype,
    subtype,
    signer,
    nOperation,
    fee,
    body,
    signature,
    bytes,
    digest,
    digestHex: hashKey(digest),
  };
}

/** A registered type's decoder may throw anything on garbage; only ChainErrors leave the ledger. */
function decodeBodySafely(type: OperationType, reader: ByteReader): unknown {
  try {
    return type.decodeBody(reader);
  } catch (error) {
    if (error instanceof ChainError) throw error;
    throw new DecodeError('BAD_BODY', `malformed ${type.name} operation body`, { cause: error });
  }
}

/**
 * Decodes exactly one operation; INVALID_DATA / INVALID_OPERATION on anything else. `share` as in
 * readOperation: the operations of a block being imported view the block's bytes.
 */
export function decodeOperation(
  bytes: Uint8Array,
  registry: OperationRegistry,
  hashes: Hashes,
  share = false,
): Operation {
  const reader = new ByteReader(bytes);
  const op = readOperation(reader, registry, hashes, share);
  reader.end('operation');
  return op;
}

/** Splits a raw blob into its operations (each decoded, so garbage is refused here). */
export function decodeRawOperations(
  blob: Uint8Array,
  registry: OperationRegistry,
  hashes: Hashes,
): Operation[] {
  const reader = new ByteReader(blob);
  const count = reader.u32('operation count');
  // Each operation takes at least MIN_OPERATION_BYTES; a larger count is garbage, refused up front.
  if (count === 0 || count * MIN_OPERATION_BYTES > reader.remaining) {
    throw new DecodeError(
      'BAD_COUNT',
      count === 0
        ? 'raw operations blob holds no operation'
        : `raw operations blob claims ${count} operations but holds ${reader.remaining} bytes`,
    );
  }
  const ops: Operation[] = [];
  for (let i = 0; i < count; i++) ops.push(readOperation(reader, registry, hashes));
  reader.end('raw operations');
  return ops;
}
