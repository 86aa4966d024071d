/**
 * HTTP the parser refused (malformed requests, oversized headers) and requests not received in
 * time: answered with a JSON-RPC error body too, since Node's default answer is bare text.
 */
import type { Duplex } from 'node:stream';
import { jsonRpcError, RpcErrorCode } from './errors.js';
import { errorResponse } from './replies.js';

/**
 * Malformed HTTP and timeouts, answered with a JSON-RPC error body too (Node's default answer is
 * bare text), then the connection is closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  let status = '400 Bad Request';
  let error = jsonRpcError(
    RpcErrorCode.INVALID_REQUEST,
    'INVALID_REQUEST',
    'malformed HTTP request',
  );
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = '408 Request Timeout';
    error = jsonRpcError(
      RpcErrorCode.REQUEST_TIMEOUT,
      'REQUEST_TIMEOUT',
      'request not received in time',
    );
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = '431 Request Header Fields Too Large';
    error = jsonRpcError(
      RpcErrorCode.INVALID_REQUEST,
      'INVALID_REQUEST',
      'request headers too large',
    );
  }
  const body = JSON.stringify(errorResponse(null, error));
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
