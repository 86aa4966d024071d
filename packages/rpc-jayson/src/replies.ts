/**
 * The JSON-RPC 2.0 response objects the server writes. Responses carry the request id as a string
 * (the spec's rule); a result from the cache is already JSON text.
 */
import { echoed, type JsonRpcErrorObject, type JsonRpcResponse } from '@chain/spec';
import { jsonRpcError, RpcErrorCode } from './errors.js';

/** A response already serialised (from the result cache). */
type SerializedResponse = string;
export type Reply = JsonRpcResponse | SerializedResponse;

export type { JsonRpcResponse };

const NUMERIC_ID = /^-?\d+$/;

export const INTERNAL_ERROR = jsonRpcError(
  RpcErrorCode.INTERNAL_ERROR,
  'INTERNAL_ERROR',
  'Internal error',
);
export const PARSE_ERROR_BODY = JSON.stringify({
  jsonrpc: '2.0',
  error: jsonRpcError(RpcErrorCode.PARSE_ERROR, 'PARSE_ERROR', 'Parse error'),
  id: null,
});
export function errorResponse(id: string | null, error: JsonRpcErrorObject): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}

/** A success response around a result already in JSON, fields in the order jayson writes them. */
export function serializedResult(id: string | null, resultJson: string): SerializedResponse {
  return `{"jsonrpc":"2.0","id":${id === null ? 'null' : JSON.stringify(id)},"result":${resultJson}}`;
}

export function invalidRequest(id: string | null, message: string): JsonRpcResponse {
  return errorResponse(id, jsonRpcError(RpcErrorCode.INVALID_REQUEST, 'INVALID_REQUEST', message));
}

/** The inner id of a nested result: an integer when the request id is numeric. */
export function nestedId(id: string | null): number | string | null {
  if (id === null || !NUMERIC_ID.test(id)) return id;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : id;
}

/** A name sent by the caller (a method, a host), cut short before an error message echoes it. */
export function echoName(name: string): string {
  return echoed(name);
}
