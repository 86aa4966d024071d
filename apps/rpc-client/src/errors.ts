/**
 * Errors of the SDK. A JSON-RPC error reply (the node understood the call and refused it) is an
 * RpcError; anything that kept a reply from arriving or being understood is a TransportError.
 */

/**
 * Every error code a chain-node answers with, by name (the JSON-RPC 2.0 codes, the node's protocol
 * codes and its domain codes), from @chain/spec: `isRpcError(error, ERROR_CODES.WRONG_PASSPHRASE)`.
 */
export { ERROR_CODES, type ErrorCodeName } from '@chain/spec';

/** The node answered with a JSON-RPC error object. */
export class RpcError extends Error {
  /** JSON-RPC error code: -32xxx for protocol errors, the node's domain codes (1002, 1030, ...). */
  readonly code: number;
  /** Stable UPPER_SNAKE reason from `error.data.reason`, when the node gave one. */
  readonly reason?: string;
  /** The request parameter at fault, from `error.data.param`, when the node named one. */
  readonly param?: string;
  /** `error.data` as received. */
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
    if (typeof data === 'object' && data !== null) {
      const { reason, param } = data as { reason?: unknown; param?: unknown };
      if (typeof reason === 'string') this.reason = reason;
      if (typeof param === 'string') this.param = param;
    }
  }
}

/**
 * True when `error` is the node's JSON-RPC error reply (optionally: with this code). Works across
 * copies of the SDK (bundled twice, another realm), where `instanceof` would not.
 */
export function isRpcError(error: unknown, code?: number): error is RpcError {
  if (!(error instanceof Error) || error.name !== 'RpcError') return false;
  const errorCode = (error as { code?: unknown }).code;
  return typeof errorCode === 'number' && (code === undefined || errorCode === code);
}

export type TransportErrorReason =
  /** The request never got an HTTP response (connection refused, reset, DNS, ...). */
  | 'NETWORK'
  /** No complete response within `timeoutMs`. */
  | 'TIMEOUT'
  /** An HTTP error status without a JSON-RPC reply in the body (401, 413, 502, ...). */
  | 'HTTP_STATUS'
  /** A response that is not a JSON-RPC 2.0 reply to the request sent. */
  | 'INVALID_RESPONSE'
  /** No WebSocket implementation: neither the global one nor `ClientOptions.WebSocket`. */
  | 'NO_WEBSOCKET';

/** The call did not produce a JSON-RPC reply: network failure, HTTP error status, bad response. */
export class TransportError extends Error {
  readonly reason: TransportErrorReason;
  /** The HTTP status, when a response arrived. */
  readonly status?: number;

  constructor(
    reason: TransportErrorReason,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.reason = reason;
    if (options.status !== undefined) this.status = options.status;
  }
}

/** No complete response arrived within the client's `timeoutMs`. */
export class TimeoutError extends TransportError {
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number) {
    super('TIMEOUT', message);
    this.timeoutMs = timeoutMs;
  }
}

/** Malformed input to an amount helper (parseUnits, formatUnits and friends). */
export class AmountError extends Error {
  readonly reason: 'INVALID_AMOUNT' | 'TOO_MANY_DECIMALS' | 'INVALID_DECIMALS';

  constructor(reason: AmountError['reason'], message: string) {
    super(message);
    this.name = 'AmountError';
    this.reason = reason;
  }
}
