import {
  bytesToHex,
  concatBytes,
  ErrorCode,
  type Hashes,
  hexToBytes,
  isHex,
  isU32,
  pureHashes,
  readU32le,
  u32le,
} from '@chain/crypto';
import { OpHashError } from './errors';

export const DIGEST_LENGTH = 20;
/** block, account, n_operation (u32le each) and the digest: 32 bytes, 64 hex characters. */
export const OPHASH_LENGTH = 12 + DIGEST_LENGTH;
export const OPHASH_HEX_LENGTH = 2 * OPHASH_LENGTH;

export interface OpHashParts {
  /** Block height holding the operation; 0 while pending. */
  block: number;
  account: number;
  nOperation: number;
  /** RIPEMD160(SHA256(signed operation bytes)), 20 bytes. */
  digest: Uint8Array;
}

/** RIPEMD160(SHA256(signed operation bytes)); pass `nativeHashes` on Node's hot paths. */
export function operationDigest(
  signedOperation: Uint8Array,
  hashes: Hashes = pureHashes,
): Uint8Array {
  return hashes.ripemd160(hashes.sha256(signedOperation));
}

/** 64 lowercase hex: block u32le || account u32le || n_operation u32le || digest. */
export function buildOpHash(parts: OpHashParts): string {
  assertParts(parts);
  return bytesToHex(
    concatBytes(u32le(parts.block), u32le(parts.account), u32le(parts.nOperation), parts.digest),
  );
}

/** Either hex case. OpHashError(INVALID_DATA, 'INVALID_OPHASH') naming `param` when malformed. */
export function decodeOpHash(ophash: string, param = 'ophash'): OpHashParts {
  if (!isHex(ophash) || ophash.length !== OPHASH_HEX_LENGTH) {
    throw new OpHashError(
      ErrorCode.INVALID_DATA,
      'INVALID_OPHASH',
      `'${param}' must be ${OPHASH_HEX_LENGTH} hex characters: block, account and n_operation (8 each, little-endian) and a 40-character digest`,
      { param },
    );
  }
  const bytes = hexToBytes(ophash);
  return {
    block: readU32le(bytes, 0),
    account: readU32le(bytes, 4),
    nOperation: readU32le(bytes, 8),
    digest: bytes.slice(12),
  };
}

/**
 * The block-independent part (account, n_operation, digest) as 48 lowercase hex characters. A
 * pending operation's ophash (block 0) and its mined ophash share it, so a lookup by either finds
 * the operation.
 */
export function opHashIdentity(parts: OpHashParts | string, param = 'ophash'): string {
  const decoded = typeof parts === 'string' ? decodeOpHash(parts, param) : parts;
  return buildOpHash({ ...decoded, block: 0 }).slice(8);
}

const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function u32leHex(value: number): string {
  return (
    BYTE_HEX[value & 0xff]! +
    BYTE_HEX[(value >>> 8) & 0xff]! +
    BYTE_HEX[(value >>> 16) & 0xff]! +
    BYTE_HEX[value >>> 24]!
  );
}

/**
 * opHashIdentity from parts already at hand, the digest as 40 lowercase hex characters (a block
 * writes one identity per operation, so this skips the checks and the byte round trip).
 */
export function opHashIdentityOf(account: number, nOperation: number, digestHex: string): string {
  return u32leHex(account) + u32leHex(nOperation) + digestHex;
}

function assertParts(parts: OpHashParts): void {
  const bad = (what: string): never => {
    throw new OpHashError(ErrorCode.INVALID_DATA, 'INVALID_OPHASH_PARTS', `ophash ${what}`);
  };
  if (!isU32(parts.block)) bad('block must be an integer in [0, 2^32)');
  if (!isU32(parts.account)) bad('account must be an integer in [0, 2^32)');
  if (!isU32(parts.nOperation)) bad('n_operation must be an integer in [0, 2^32)');
  if (!(parts.digest instanceof Uint8Array) || parts.digest.length !== DIGEST_LENGTH) {
    bad(`digest must be ${DIGEST_LENGTH} bytes`);
  }
}
