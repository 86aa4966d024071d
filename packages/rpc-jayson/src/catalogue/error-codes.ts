/**
 * Every error code a chain-node answers with, by name (listed in docs/rpc.md). The catalogue holds
 * them so that the server and the SDK, which bundles only the catalogue, read one table; the domain
 * part is also `ErrorCode` of @chain/crypto, which may import nothing, and a test in chain-node
 * keeps the two identical.
 */

/** JSON-RPC 2.0 codes and the server's own protocol codes (-32001..-32010). */
export const PROTOCOL_ERROR_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** A catalogue method that no handler implements yet. */
  NOT_AVAILABLE: -32001,
  /** Missing or wrong HTTP credentials (HTTP 401). */
  UNAUTHORIZED: -32002,
  /** A key-material method (dumpPrivateKey, privSendTo, ...) called off loopback without allowKeys. */
  KEYS_NOT_ALLOWED: -32003,
  /** Host header not in the allowlist (HTTP 403). */
  HOST_NOT_ALLOWED: -32004,
  /** Too many calls in flight (HTTP 503). */
  BUSY: -32005,
  /** Request body over the limit (HTTP 413). */
  BODY_TOO_LARGE: -32006,
  /** Content-Type is not application/json (HTTP 415). */
  UNSUPPORTED_MEDIA_TYPE: -32007,
  /** HTTP method other than POST (HTTP 405). */
  HTTP_METHOD_NOT_ALLOWED: -32008,
  /** CORS preflight from an origin not configured (HTTP 403). */
  ORIGIN_NOT_ALLOWED: -32009,
  /** Headers or body not received within the timeouts (HTTP 408). */
  REQUEST_TIMEOUT: -32010,
} as const;

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
