/**
 * The JSON-RPC 2.0 envelope as chain-node speaks it over HTTP (SPEC.md "Protocol"): what a client
 * sends, what the node answers, and the error object of a refusal.
 */

/** The `error.data` of every error the node answers: a stable reason, and the param at fault. */
export interface RpcErrorData {
  /** Stable UPPER_SNAKE reason (a protocol reason of PROTOCOL_ERRORS, or a domain reason). */
  reason: string;
  /** The request parameter at fault, when one is. */
  param?: string;
}

/** The `error` member of a response. `code` and `data.reason` are stable; the message is not. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: RpcErrorData;
}

/** A request: params by name (an object) or by position in catalogue order (an array). */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  method: string;
  params?: Readonly<Record<string, unknown>> | readonly unknown[];
  /** Absent for a notification, which gets no response. */
  id?: string | number | null;
}

/**
 * A response as the node writes it: the request's id echoed as a string (a numeric id too, by the
 * spec's rule), null when the request's id could not be read; `result` or `error`, never both.
 */
export interface JsonRpcResponse<R = unknown> {
  jsonrpc: '2.0';
  id: string | null;
  result?: R;
  error?: JsonRpcErrorObject;
}
