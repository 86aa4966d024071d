/**
 * JSON-RPC errors of the front end, and the ONE place where any thrown value becomes a JSON-RPC
 * error object. Domain errors are duck-typed (`{code: number, reason: string, param?: string}`, as
 * ChainError of @chain/crypto); everything else is an internal error whose details never leave.
 */
import {
  DOMAIN_ERROR_CODES,
  type JsonRpcErrorObject,
  PROTOCOL_ERROR_CODES,
  type RpcErrorData,
} from '@chain/spec';
import type { Logger } from './options.js';

/**
 * JSON-RPC 2.0 codes and the server's own codes (documented in docs/rpc.md), from @chain/spec's
 * table, which the SDK shares.
 */
export const RpcErrorCode = PROTOCOL_ERROR_CODES;

/** Code of configuration errors (PascalCoin's "not allowed", as ErrorCode.NOT_ALLOWED). */
export const CONFIG_ERROR_CODE = DOMAIN_ERROR_CODES.NOT_ALLOWED;

export type { JsonRpcErrorObject, RpcErrorData };

/** An error of the RPC front end itself, with a stable code and reason (same shape as ChainError). */
export class RpcError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly param?: string;

  constructor(code: number, reason: string, message: string, param?: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.reason = reason;
    if (param !== undefined) this.param = param;
  }
}

/** -32602: a param is missing, unknown or malformed. */
export class InvalidParamsError extends RpcError {
  constructor(message: string, param?: string) {
    super(RpcErrorCode.INVALID_PARAMS, 'INVALID_PARAMS', message, param);
  }
}

/** The server cannot start as configured (e.g. a public bind without authentication). */
export class RpcConfigError extends RpcError {
  constructor(reason: string, message: string, param?: string) {
    super(CONFIG_ERROR_CODE, reason, message, param);
  }
}

export function jsonRpcError(
  code: number,
  reason: string,
  message: string,
  param?: string,
): JsonRpcErrorObject {
  return param === undefined
    ? { code, message, data: { reason } }
    : { code, message, data: { reason, param } };
}

const INTERNAL: JsonRpcErrorObject = Object.freeze({
  code: RpcErrorCode.INTERNAL_ERROR,
  message: 'Internal error',
  data: Object.freeze({ reason: 'INTERNAL_ERROR' }),
}) as JsonRpcErrorObject;

interface CodedError {
  code: number;
  reason: string;
  message?: unknown;
  param?: unknown;
}

function isCodedError(err: unknown): err is CodedError {
  if (typeof err !== 'object' || err === null) return false;
  const { code, reason } = err as { code?: unknown; reason?: unknown };
  return typeof code === 'number' && Number.isSafeInteger(code) && typeof reason === 'string';
}

/**
 * Maps anything a handler (or the server) threw to a JSON-RPC error object: coded errors keep their
 * code, message, reason and param; anything else is logged and answered as -32603 without details.
 */
export function toJsonRpcError(
  err: unknown,
  log: Logger | undefined,
  method: string,
): JsonRpcErrorObject {
  if (isCodedError(err)) {
    const message =
      typeof err.message === 'string' && err.message !== '' ? err.message : err.reason;
    const param = typeof err.param === 'string' ? err.param : undefined;
    return jsonRpcError(err.code, err.reason, message, param);
  }
  log?.error({ err, method }, 'RPC handler failed');
  return INTERNAL;
}
