import {
  bytesToBigintBE,
  bytesToHex,
  ErrorCode,
  equalBytes,
  getPublicKey,
  pureHashes,
  pureSecp256k1,
  tokenAddress,
} from '@chain/crypto';
import {
  appendSignature,
  encodeRawOperations,
  encodeUnsignedOperation,
  operationSigningHash,
} from '@chain/ledger/codec';
import { buildOpHash, operationDigest } from '@chain/ophash';
import { nodeCodeOf, signMineConsent as signConsentBytes } from '@chain/tiers/codec';
import { invalidInput, OfflineError } from './errors';
import {
  type BytesInput,
  bytesOf,
  checkContext,
  checkSignerFor,
  nodeCodeInput,
  privateKeyOf,
  type SigningContext,
} from './inputs';
import { type OperationInput, type OperationKind, planBody } from './operations';

/** secp256k1's group order: r and s lie in [1, n - 1]; s at most n / 2 (low-S). */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** What an operation's type and header say, and what it creates. */
export interface OperationSummary {
  type: OperationKind;
  optype: number;
  subtype: number;
  /** The signer field: account number, or NEW_ACCOUNT. */
  account: number;
  nOperation: number;
  /** Base units. */
  fee: bigint;
  /** nodeStep1: the node code of the TOP node it creates. */
  code?: string;
  /** createToken: the token's address (when the context names the network prefix). */
  token?: string;
}

/** An operation ready to be signed by any secp256k1 signer (a hardware wallet, a remote signer). */
export interface PreparedOperation extends OperationSummary {
  /** The operation's bytes before the signature. */
  unsigned: Uint8Array;
  /** SHA256("chain-op" || genesis || unsigned): sign this 32-byte hash (low-S, r || s). */
  signingHash: Uint8Array;
}

export interface SignedOperation extends OperationSummary {
  /** The signed operation: `unsigned || signature`. */
  bytes: Uint8Array;
  /** `bytes` in hex. */
  hex: string;
  /** RIPEMD160(SHA256(bytes)), 40 hex. */
  digest: string;
  /** The pending ophash (block 0), 64 hex; findOperation finds the operation by it once mined. */
  ophash: string;
}

/** Encodes an operation without signing it: its bytes and the hash its signer signs. */
export function prepareOperation(
  input: OperationInput,
  context: SigningContext,
): PreparedOperation {
  const ctx = checkContext(context);
  const { codec, body } = planBody(input, ctx);
  checkSignerFor(input.type, ctx);
  const unsigned = encodeUnsignedOperation(
    {
      optype: codec.optype,
      subtype: codec.subtype,
      signer: ctx.account,
      nOperation: ctx.nOperation,
      fee: ctx.fee,
    },
    codec,
    body,
  );
  return {
    type: input.type,
    optype: codec.optype,
    subtype: codec.subtype,
    account: ctx.account,
    nOperation: ctx.nOperation,
    fee: ctx.fee,
    ...(input.type === 'nodeStep1' ? { code: nodeCodeOf(ctx.account, ctx.nOperation) } : {}),
    ...(input.type === 'createToken' && ctx.prefix !== undefined
      ? { token: tokenAddress(ctx.prefix, ctx.account, ctx.nOperation) }
      : {}),
    unsigned,
    signingHash: operationSigningHash(ctx.genesis, unsigned, pureHashes),
  };
}

/**
 * Builds and signs an operation (RFC 6979 nonce, low-S): the same bytes chain-node's own signer
 * makes. An activation's public key defaults to the signing key's.
 */
export function signOperation(
  input: OperationInput,
  context: SigningContext,
  privateKey: BytesInput,
): SignedOperation {
  const key = privateKeyOf(privateKey);
  let operation = input;
  if (input?.type === 'activation') {
    const publicKey = getPublicKey(key);
    if (
      input.publicKey !== undefined &&
      !equalBytes(bytesOf(input.publicKey, 'publicKey'), publicKey)
    ) {
      throw new OfflineError(
        ErrorCode.INVALID_KEY,
        'KEY_MISMATCH',
        "'publicKey' is not the public key of the signing key (an activation is signed by its own key)",
        { param: 'publicKey' },
      );
    }
    operation = { ...input, publicKey };
  }
  const prepared = prepareOperation(operation, context);
  return finish(prepared, pureSecp256k1.sign(prepared.signingHash, key));
}

/**
 * Signs operations of one account in sequence: the first carries `context.nOperation`, the next
 * one more, and so on (several operations of an account may be pending at once).
 */
export function signOperations(
  inputs: readonly OperationInput[],
  context: SigningContext,
  privateKey: BytesInput,
): SignedOperation[] {
  return inputs.map((input, i) =>
    signOperation(input, { ...context, nOperation: context.nOperation + i }, privateKey),
  );
}

/**
 * A prepared operation with a signature made elsewhere: 64 bytes `r || s`, low-S. With
 * `publicKey` (33 bytes compressed) the signature is verified first.
 */
export function attachSignature(
  prepared: PreparedOperation,
  signature: BytesInput,
  publicKey?: BytesInput,
): SignedOperation {
  const sig = bytesOf(signature, 'signature', 64);
  const r = bytesToBigintBE(sig.subarray(0, 32));
  const s = bytesToBigintBE(sig.subarray(32));
  if (r === 0n || r >= CURVE_ORDER || s === 0n || s >= CURVE_ORDER) {
    throw invalidInput('BAD_SIGNATURE', 'r and s must lie in [1, n - 1]', 'signature');
  }
  if (s > CURVE_ORDER >> 1n) {
    throw invalidInput(
      'HIGH_S',
      'the signature is high-S: nodes refuse it; use s = n - s (the same signature, canonical)',
      'signature',
    );
  }
  if (
    publicKey !== undefined &&
    !pureSecp256k1.verify(sig, prepared.signingHash, bytesOf(publicKey, 'publicKey', 33))
  ) {
    throw new OfflineError(
      ErrorCode.SIGNATURE_MISMATCH,
      'SIGNATURE_MISMATCH',
      'the signature does not verify with the public key',
      { param: 'signature' },
    );
  }
  return finish(prepared, sig);
}

function finish(prepared: PreparedOperation, signature: Uint8Array): SignedOperation {
  const { unsigned: _unsigned, signingHash: _hash, ...summary } = prepared;
  const bytes = appendSignature(prepared.unsigned, signature);
  const digest = operationDigest(bytes);
  return {
    ...summary,
    bytes,
    hex: bytesToHex(bytes),
    digest: bytesToHex(digest),
    ophash: buildOpHash({
      block: 0,
      account: prepared.account,
      nOperation: prepared.nOperation,
      digest,
    }),
  };
}

/** The raw operation blob (hex) of signed operations, for excuteRaw / InfoRaw. */
export function encodeRaw(operations: readonly (SignedOperation | BytesInput)[]): string {
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalidInput(
      'NO_OPERATIONS',
      'a raw operation blob holds at least one operation',
      'operations',
    );
  }
  const bytes = operations.map((op, i) =>
    typeof op === 'object' && op !== null && 'bytes' in op
      ? op.bytes
      : bytesOf(op as BytesInput, `operations[${i}]`),
  );
  return bytesToHex(encodeRawOperations(bytes));
}

/**
 * blockchainStart's `mineConsent`: the mine wallet's signature of
 * SHA256("chain-mine-consent" || genesis || code), 64 bytes hex.
 */
export function signMineConsent(
  genesis: BytesInput,
  code: string,
  minePrivateKey: BytesInput,
): string {
  return bytesToHex(
    signConsentBytes(
      bytesOf(genesis, 'genesis', 32),
      nodeCodeInput(code),
      privateKeyOf(minePrivateKey, 'minePrivateKey'),
    ),
  );
}

/** The node code that the nodeStep1 operation of (account, nOperation) gives its TOP node. */
export function nodeCode(account: number, nOperation: number): string {
  return nodeCodeOf(account, nOperation);
}
