import {
  bytesToHex,
  concatBytes,
  equalBytes,
  hexToBytes,
  isU32,
  u32le,
  utf8ToBytes,
} from './bytes';
import { CryptoError, ErrorCode } from './errors';
import { type Hashes, hash160, pureHashes } from './hashes';

/** Network prefix length, hex characters after it, and bytes of hash and checksum (DESIGN §2). */
export const ADDRESS_PREFIX_LENGTH = 2;
export const ADDRESS_HEX_LENGTH = 46;
export const ADDRESS_LENGTH = ADDRESS_PREFIX_LENGTH + ADDRESS_HEX_LENGTH;
const HASH_LENGTH = 20;
const CHECKSUM_LENGTH = 3;

const PREFIX_PATTERN = /^[A-Za-z0-9]{2}$/;
const ADDRESS_PATTERN = /^[A-Za-z0-9]{2}[0-9a-fA-F]{46}$/;

export interface DecodedAddress {
  prefix: string;
  hash160: Uint8Array;
}

/** Two ASCII letters or digits, as a genesis defines them (the dev network uses `CH`). */
export function isValidNetworkPrefix(prefix: unknown): prefix is string {
  return typeof prefix === 'string' && PREFIX_PATTERN.test(prefix);
}

/** `hashes` computes the checksum: node:crypto's (`nativeHashes`) on servers, pure by default. */
export function addressFromHash160(
  prefix: string,
  hash20: Uint8Array,
  hashes: Hashes = pureHashes,
): string {
  assertPrefix(prefix);
  if (!(hash20 instanceof Uint8Array) || hash20.length !== HASH_LENGTH) {
    throw new CryptoError(
      ErrorCode.INVALID_DATA,
      'INVALID_HASH160',
      'address hash must be 20 bytes',
    );
  }
  return prefix + bytesToHex(hash20) + bytesToHex(checksum(prefix, hash20, hashes));
}

export function addressFromPublicKey(
  prefix: string,
  publicKey33: Uint8Array,
  hashes: Hashes = pureHashes,
): string {
  if (!(publicKey33 instanceof Uint8Array) || publicKey33.length !== 33) {
    throw new CryptoError(
      ErrorCode.INVALID_KEY,
      'INVALID_PUBLIC_KEY',
      'public key must be 33 bytes (compressed)',
    );
  }
  return addressFromHash160(prefix, hash160(publicKey33, hashes), hashes);
}

/**
 * Parses and checks an address. The hex part is accepted in either case; the prefix is compared
 * exactly. Reasons: INVALID_ADDRESS_FORMAT (shape), WRONG_NETWORK_PREFIX, BAD_ADDRESS_CHECKSUM.
 * `hashes` computes the checksum of an address not checked before, as in addressFromHash160.
 */
export function decodeAddress(
  address: string,
  expectedPrefix?: string,
  param?: string,
  hashes: Hashes = pureHashes,
): DecodedAddress {
  const what = param === undefined ? 'address' : `'${param}'`;
  if (typeof address !== 'string' || !ADDRESS_PATTERN.test(address)) {
    throw new CryptoError(
      ErrorCode.INVALID_ACCOUNT,
      'INVALID_ADDRESS_FORMAT',
      describeBadFormat(what, address),
      {
        param,
      },
    );
  }
  const prefix = address.slice(0, ADDRESS_PREFIX_LENGTH);
  if (expectedPrefix !== undefined && prefix !== expectedPrefix) {
    throw new CryptoError(
      ErrorCode.INVALID_ACCOUNT,
      'WRONG_NETWORK_PREFIX',
      `${what} has network prefix '${prefix}' but this network uses '${expectedPrefix}'`,
      { param },
    );
  }
  const known = checkedAddresses.get(address);
  if (known !== undefined) return { prefix, hash160: known.slice() };
  const body = hexToBytes(address.slice(ADDRESS_PREFIX_LENGTH));
  const hash = body.slice(0, HASH_LENGTH);
  if (!equalBytes(body.subarray(HASH_LENGTH), checksum(prefix, hash, hashes))) {
    throw new CryptoError(
      ErrorCode.INVALID_ACCOUNT,
      'BAD_ADDRESS_CHECKSUM',
      `${what} has a wrong checksum (mistyped or damaged address)`,
      { param },
    );
  }
  rememberCheckedAddress(address, hash);
  return { prefix, hash160: hash };
}

/**
 * Addresses whose checksum was verified, with their hash: the same wallets are read over and over
 * (exchanges poll them), and a checksum costs a SHA-256. Bounded; emptied when full.
 */
const checkedAddresses = new Map<string, Uint8Array>();
const CHECKED_ADDRESSES_MAX = 8192;

function rememberCheckedAddress(address: string, hash: Uint8Array): void {
  if (checkedAddresses.size >= CHECKED_ADDRESSES_MAX) checkedAddresses.clear();
  checkedAddresses.set(address, hash.slice());
}

/** The validated address in canonical form (lowercase hex). */
export function normalizeAddress(address: string, expectedPrefix?: string, param?: string): string {
  decodeAddress(address, expectedPrefix, param);
  return canonicalCase(address);
}

/** The canonical spelling of an address already validated: prefix as it is, hex in lowercase. */
function canonicalCase(address: string): string {
  const hex = address.slice(ADDRESS_PREFIX_LENGTH);
  const lower = hex.toLowerCase();
  return lower === hex ? address : address.slice(0, ADDRESS_PREFIX_LENGTH) + lower;
}

export function isValidAddress(address: string, expectedPrefix?: string): boolean {
  try {
    decodeAddress(address, expectedPrefix);
    return true;
  } catch {
    return false;
  }
}

/** A token's address: RIPEMD160(SHA256("token" || creator account u32le || creator n_operation u32le)). */
export function tokenAddress(
  prefix: string,
  creatorAccount: number,
  creatorNOperation: number,
): string {
  if (!isU32(creatorAccount) || !isU32(creatorNOperation)) {
    throw new CryptoError(
      ErrorCode.INVALID_DATA,
      'INVALID_TOKEN_CREATOR',
      'token creator account and n_operation must be integers in [0, 2^32)',
    );
  }
  return addressFromHash160(
    prefix,
    hash160(concatBytes(utf8ToBytes('token'), u32le(creatorAccount), u32le(creatorNOperation))),
  );
}

/**
 * The first CHECKSUM_LENGTH bytes of SHA-256(prefix || hash20). The prefix is two ASCII characters
 * (every caller checked it), so its bytes are its character codes: one input array instead of an
 * encoder's output and a concatenation, on every address not checked before.
 */
function checksum(prefix: string, hash20: Uint8Array, hashes: Hashes = pureHashes): Uint8Array {
  const input = new Uint8Array(prefix.length + hash20.length);
  for (let i = 0; i < prefix.length; i++) input[i] = prefix.charCodeAt(i);
  input.set(hash20, prefix.length);
  return hashes.sha256(input).subarray(0, CHECKSUM_LENGTH);
}

function assertPrefix(prefix: string): void {
  if (!isValidNetworkPrefix(prefix)) {
    throw new CryptoError(
      ErrorCode.INVALID_DATA,
      'INVALID_NETWORK_PREFIX',
      'network prefix must be 2 ASCII letters or digits',
    );
  }
}

function describeBadFormat(what: string, address: unknown): string {
  const expected = `a 2-character network prefix followed by ${ADDRESS_HEX_LENGTH} hex characters`;
  if (typeof address !== 'string') return `${what} must be a string: ${expected}`;
  if (address.length !== ADDRESS_LENGTH) {
    return `${what} must be ${ADDRESS_LENGTH} characters, ${expected} (got ${address.length})`;
  }
  if (!PREFIX_PATTERN.test(address.slice(0, ADDRESS_PREFIX_LENGTH))) {
    return `${what} must start with a 2-character network prefix of letters or digits`;
  }
  return `${what} must be ${expected}; it contains a character that is not hex`;
}
