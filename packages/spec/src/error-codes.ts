/**
 * Every error code a chain-node answers with, by name (listed in docs/rpc.md): the one table that the
 * server (@chain/rpc-jayson), the SDK (@chain/rpc-client, as ERROR_CODES) and the domain packages
 * (@chain/crypto's ErrorCode is DOMAIN_ERROR_CODES) read.
 *
 * A protocol error's reason (`error.data.reason`) is its name here; a domain code covers several
 * reasons (1016: INVALID_OPHASH, INVALID_PAYLOAD, ...), named by the error classes of each package.
 */

/** One protocol error: its code and when the server answers it (the docs' wording). */
export interface ProtocolErrorSpec {
  readonly code: number;
  readonly when: string;
}

/**
 * JSON-RPC 2.0 errors and the server's own protocol errors (-32001..-32010, push -32020..-32022), by reason, with the
 * HTTP status of the refusals that answer before dispatch.
 */
export const PROTOCOL_ERRORS = {
  PARSE_ERROR: { code: -32700, when: 'the body is not JSON' },
  INVALID_REQUEST: { code: -32600, when: 'not a JSON-RPC request, empty or too large batch' },
  METHOD_NOT_FOUND: {
    code: -32601,
    when: 'no such method (with "did you mean" for a near name)',
  },
  INVALID_PARAMS: { code: -32602, when: 'a param missing, unknown or malformed' },
  INTERNAL_ERROR: {
    code: -32603,
    when: 'a failure inside the node (logged there, never detailed)',
  },
  NOT_AVAILABLE: { code: -32001, when: 'a method of the spec not built yet' },
  UNAUTHORIZED: { code: -32002, when: 'missing or wrong credentials (HTTP 401)' },
  KEYS_NOT_ALLOWED: { code: -32003, when: 'a key-carrying method off loopback' },
  HOST_NOT_ALLOWED: { code: -32004, when: 'Host header not allowed (HTTP 403)' },
  BUSY: { code: -32005, when: 'too many requests in flight (HTTP 503)' },
  BODY_TOO_LARGE: { code: -32006, when: 'body over 1 MiB (HTTP 413)' },
  UNSUPPORTED_MEDIA_TYPE: {
    code: -32007,
    when: 'Content-Type is not `application/json` (HTTP 415)',
  },
  HTTP_METHOD_NOT_ALLOWED: { code: -32008, when: 'not POST (HTTP 405)' },
  ORIGIN_NOT_ALLOWED: {
    code: -32009,
    when: 'CORS preflight from an origin not configured (HTTP 403)',
  },
  REQUEST_TIMEOUT: { code: -32010, when: 'headers or body too slow (HTTP 408)' },
  // Push over WebSocket (-32020..; -32011.. are left to the HTTP front's own refusals).
  SUBSCRIPTION_LIMIT: {
    code: -32020,
    when: 'subscribe past the per-connection subscription limit',
  },
  WEBSOCKET_REQUIRED: { code: -32021, when: 'subscribe or unsubscribe over HTTP' },
  TOO_MANY_CONNECTIONS: {
    code: -32022,
    when: 'WebSocket upgrade past the connection limit, total or per IP (HTTP 503)',
  },
} as const satisfies Record<string, ProtocolErrorSpec>;

/** The reason (`error.data.reason`) of a protocol error. */
export type ProtocolErrorReason = keyof typeof PROTOCOL_ERRORS;

type ProtocolCodes = { readonly [R in ProtocolErrorReason]: (typeof PROTOCOL_ERRORS)[R]['code'] };

/** The protocol codes by reason, derived from PROTOCOL_ERRORS. */
export const PROTOCOL_ERROR_CODES: ProtocolCodes = Object.freeze(
  Object.fromEntries(
    Object.entries(PROTOCOL_ERRORS).map(([reason, { code }]) => [reason, code]),
  ) as ProtocolCodes,
);

/** The domain codes: PascalCoin's numbering where it fits, from 1030 chain-node's own. */
export const DOMAIN_ERROR_CODES = {
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

/**
 * Every code by name. Compare an error's code with these instead of bare numbers:
 * `if (isRpcError(error, ERROR_CODES.WRONG_PASSPHRASE)) ...`.
 */
export const ERROR_CODES = { ...PROTOCOL_ERROR_CODES, ...DOMAIN_ERROR_CODES } as const;

export type ErrorCodeName = keyof typeof ERROR_CODES;
