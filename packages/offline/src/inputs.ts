import {
  decodeAddress,
  decodePrivateKey,
  ErrorCode,
  hexToBytes,
  isU32,
  isValidNetworkPrefix,
  isValidPrivateKey,
} from '@chain/crypto';
import { NEW_ACCOUNT } from '@chain/ledger/codec';
import { invalidInput, OfflineError } from './errors';

/** Bytes given as a Uint8Array or as hex (either case, optional `0x`). */
export type BytesInput = Uint8Array | string;

/** What every operation needs besides its own fields: all public, none from a node's state. */
export interface SigningContext {
  /** The network's genesis hash: `nodeStatus.genesis` (64 hex) or its 32 bytes. */
  genesis: BytesInput;
  /**
   * The network's address prefix (`CH` on the dev network). When given, every address must carry
   * it; without it any prefix is accepted (operations carry only address hashes).
   */
  prefix?: string;
  /** The signer's account number (getWalletInfo); NEW_ACCOUNT only for a new address's activation. */
  account: number;
  /** The n_operation the operation carries: the account's n_operation (getWalletInfo) + 1. */
  nOperation: number;
  /** Base units: at least the act price (getActPrice), or 0 for the account's free operation. */
  fee: bigint;
}

/** The context with every field checked: the genesis hash as 32 bytes. */
export interface CheckedContext {
  genesis: Uint8Array;
  prefix?: string;
  account: number;
  nOperation: number;
  fee: bigint;
}

export function checkContext(ctx: SigningContext): CheckedContext {
  if (typeof ctx !== 'object' || ctx === null) {
    throw invalidInput('BAD_CONTEXT', 'the signing context must be an object', 'context');
  }
  const genesis = bytesOf(ctx.genesis, 'genesis', 32);
  if (ctx.prefix !== undefined && !isValidNetworkPrefix(ctx.prefix)) {
    throw invalidInput('BAD_PREFIX', "'prefix' must be 2 ASCII letters or digits", 'prefix');
  }
  if (!isU32(ctx.account)) {
    throw new OfflineError(
      ErrorCode.INVALID_ACCOUNT,
      'BAD_ACCOUNT',
      "'account' must be an account number, an integer from 0 to 4294967295",
      { param: 'account' },
    );
  }
  if (!isU32(ctx.nOperation) || ctx.nOperation === 0) {
    throw new OfflineError(
      ErrorCode.INVALID_N_OPERATION,
      'BAD_N_OPERATION',
      "'nOperation' must be the account's n_operation + 1, an integer from 1 to 4294967295",
      { param: 'nOperation' },
    );
  }
  if (typeof ctx.fee !== 'bigint' || ctx.fee < 0n) {
    throw new OfflineError(
      ErrorCode.INVALID_AMOUNT,
      'BAD_FEE',
      "'fee' must be a bigint of base units, 0 or more",
      { param: 'fee' },
    );
  }
  return {
    genesis,
    ...(ctx.prefix === undefined ? {} : { prefix: ctx.prefix }),
    account: ctx.account,
    nOperation: ctx.nOperation,
    fee: ctx.fee,
  };
}

/** Only an activation may be signed by NEW_ACCOUNT (its body carries the key). */
export function checkSignerFor(type: string, ctx: CheckedContext): void {
  if (ctx.account === NEW_ACCOUNT && type !== 'activation') {
    throw new OfflineError(
      ErrorCode.INVALID_ACCOUNT,
      'NEW_ACCOUNT_SIGNER',
      `a ${type} operation must be signed by an account on chain, not NEW_ACCOUNT`,
      { param: 'account' },
    );
  }
  if (ctx.account === NEW_ACCOUNT && ctx.nOperation !== 1) {
    throw new OfflineError(
      ErrorCode.INVALID_N_OPERATION,
      'BAD_N_OPERATION',
      "a new account's activation carries n_operation 1",
      { param: 'nOperation' },
    );
  }
}

export function bytesOf(value: BytesInput, param: string, length?: number): Uint8Array {
  const bytes =
    value instanceof Uint8Array
      ? value
      : typeof value === 'string'
        ? hexToBytes(value, param)
        : undefined;
  if (bytes === undefined) {
    throw invalidInput('BAD_BYTES', `'${param}' must be hex or a Uint8Array`, param);
  }
  if (length !== undefined && bytes.length !== length) {
    throw invalidInput('BAD_LENGTH', `'${param}' must be ${length} bytes`, param);
  }
  return bytes;
}

/** The 20-byte hash of an address, checked (prefix when the context has one, checksum). */
export function addressHash(address: string, ctx: CheckedContext, param: string): Uint8Array {
  return decodeAddress(address, ctx.prefix, param).hash160;
}

/** A private key as 32 bytes, or the encoded form / 64 hex. Errors never contain the key. */
export function privateKeyOf(key: BytesInput, param = 'privateKey'): Uint8Array {
  if (typeof key === 'string') return decodePrivateKey(key, param);
  if (key instanceof Uint8Array && isValidPrivateKey(key)) return key;
  throw new OfflineError(
    ErrorCode.INVALID_KEY,
    'INVALID_PRIVATE_KEY',
    `'${param}' must be a secp256k1 private key: 32 bytes, 64 hex characters or the encoded form`,
    { param },
  );
}

export function flagOf(value: unknown, param: string, fallback?: boolean): boolean {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw invalidInput('BAD_FLAG', `'${param}' must be true or false`, param);
  }
  return value;
}

/** A node code: 16 hex digits, either case; lowercase as the codec writes it. */
export function nodeCodeInput(code: unknown, param = 'code'): string {
  if (typeof code !== 'string' || !/^[0-9a-fA-F]{16}$/.test(code)) {
    throw invalidInput('BAD_CODE', `'${param}' must be a node code of 16 hex digits`, param);
  }
  return code.toLowerCase();
}

export function amountOf(value: unknown, param: string): bigint {
  if (typeof value !== 'bigint' || value < 0n) {
    throw new OfflineError(
      ErrorCode.INVALID_AMOUNT,
      'BAD_AMOUNT',
      `'${param}' must be a bigint of base units, 0 or more`,
      { param },
    );
  }
  return value;
}
