import { DOMAIN_ERROR_CODES } from '@chain/spec';

/**
 * Every domain error of chain-node carries a stable numeric code (PascalCoin's numbering where it fits)
 * and a stable UPPER_SNAKE reason. The JSON-RPC front end exposes both; nothing else of an error
 * (stack, causes) ever leaves the node.
 *
 * The codes are DOMAIN_ERROR_CODES of `@chain/spec`, the wire contract that the server and the SDK
 * read too: one table, named ErrorCode here for the domain packages.
 */
export const ErrorCode = DOMAIN_ERROR_CODES;

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
