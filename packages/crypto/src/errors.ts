/**
 * Every domain error of chain-node carries a stable numeric code (PascalCoin's numbering where it fits)
 * and a stable UPPER_SNAKE reason. The JSON-RPC front end exposes both; nothing else of an error
 * (stack, causes) ever leaves the node.
 *
 * The same table is DOMAIN_ERROR_CODES of `@chain/rpc-jayson/catalogue`, which the server and the
 * SDK read (this package may import nothing); chain-node's error-codes test keeps the two identical.
 */
export const ErrorCode = {
  INVALID_ACCOUNT: 1002,
  INVALID_BLOCK: 1003,
  INVALID_OPERATION: 1004,
  INVALID_KEY: 1005,
  NOT_FOUND: 1010,
  WALLET_LOCKED: 1015,
  INVALID_DATA: 1016,
  SIGNATURE_MISMATCH: 1020,
  NOT_ALLOWED: 1021,
  WRONG_PASSPHRASE: 1030,
  INSUFFICIENT_FUNDS: 1031,
  INVALID_N_OPERATION: 1032,
  INACTIVE_ACCOUNT: 1033,
  INVALID_AMOUNT: 1034,
  DUPLICATE_OPERATION: 1035,
  FEE_TOO_LOW: 1036,
  TOO_MANY_ATTEMPTS: 1037,
  MEMPOOL_FULL: 1038,
  TOKEN_RULE: 1040,
  PARTICIPATION_RULE: 1060,
  NETWORK: 1080,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ChainErrorOptions {
  /** The request parameter at fault, when one is. */
  param?: string;
  cause?: unknown;
}

export class ChainError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly param?: string;

  constructor(code: number, reason: string, message: string, options: ChainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.reason = reason;
    if (options.param !== undefined) this.param = options.param;
  }

  /** The same error, attributed to a request parameter. */
  withParam(param: string): this {
    (this as { param?: string }).param = param;
    return this;
  }
}

/** A malformed value that no valid input could produce (bad hex, bad address, bad key encoding). */
export class CryptoError extends ChainError {}
