/**
 * The access rules of the RPC port, as functions every transport calls the same way (the HTTP
 * front per request, a WebSocket on its upgrade and per call): the Host allowlist, credentials,
 * allowed origins and who may use key material. A refusal says what to answer; the transport
 * writes it in its own way.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { createBasicAuthCheck, createHostCheck, hostOfHeader } from './access.js';
import { jsonRpcError, RpcErrorCode } from './errors.js';
import type { CallContext, RpcAuth, RpcServerOptions } from './options.js';
import { echoName, errorResponse } from './replies.js';

/** Failed credentials are answered this late, which slows guessing. */
const AUTH_FAILURE_DELAY_MS = 250;

/** Why a request is turned away: the HTTP status and the JSON-RPC error of the body. */
export interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  readonly headers?: OutgoingHttpHeaders;
  /** Answer no sooner than this (failed credentials). */
  readonly delayMs?: number;
}

/** A browser page of an origin the CORS rule does not allow (a preflight, a WebSocket upgrade). */
export const ORIGIN_NOT_ALLOWED: Refusal = {
  status: 403,
  code: RpcErrorCode.ORIGIN_NOT_ALLOWED,
  reason: 'ORIGIN_NOT_ALLOWED',
  message: 'origin not allowed',
};

export interface AccessRules {
  /** A refusal unless the Host header names this server (DNS-rebinding defence). */
  hostRefusal(hostHeader: string | undefined): Refusal | undefined;
  /** True when a browser page of this origin may call (CORS); false when no origin is sent. */
  originAllowed(origin: string | undefined): origin is string;
  /** True when there are allowed origins at all. */
  readonly corsEnabled: boolean;
  /** True once credentials are required (set by `requireCredentials`). */
  readonly credentialsRequired: boolean;
  /** A refusal unless the Authorization header holds the credentials (when they are required). */
  credentialsRefusal(authorization: string | undefined): Refusal | undefined;
  /** Whether a key-material method may run for this caller. */
  keysAllowed(context: CallContext): boolean;
  /** Requires these credentials from now on (known only at start: the cookie file's). */
  requireCredentials(auth: RpcAuth | undefined): void;
}

const UNAUTHORIZED: Refusal = {
  status: 401,
  code: RpcErrorCode.UNAUTHORIZED,
  reason: 'UNAUTHORIZED',
  message: 'authentication required',
  headers: { 'www-authenticate': 'Basic realm="chain-node", charset="UTF-8"' },
  delayMs: AUTH_FAILURE_DELAY_MS,
};

type AccessConfig = Pick<
  RpcServerOptions,
  'host' | 'allowedHosts' | 'corsOrigins' | 'allowKeys' | 'isLoopbackAddress'
>;

export function createAccessRules(config: AccessConfig): AccessRules {
  const hostAllowed = createHostCheck(config.host, config.allowedHosts);
  const corsOrigins = new Set(config.corsOrigins);
  const boundLoopback = config.isLoopbackAddress(config.host);
  let authorized: ((header: string | undefined) => boolean) | undefined;

  return {
    hostRefusal(hostHeader) {
      if (hostAllowed(hostHeader)) return undefined;
      const host = hostHeader === undefined ? '' : hostOfHeader(hostHeader);
      return {
        status: 403,
        code: RpcErrorCode.HOST_NOT_ALLOWED,
        reason: 'HOST_NOT_ALLOWED',
        message: `host '${echoName(host)}' not allowed`,
      };
    },
    originAllowed(origin): origin is string {
      return origin !== undefined && corsOrigins.has(origin);
    },
    corsEnabled: corsOrigins.size > 0,
    get credentialsRequired() {
      return authorized !== undefined;
    },
    credentialsRefusal(authorization) {
      return authorized === undefined || authorized(authorization) ? undefined : UNAUTHORIZED;
    },
    keysAllowed(context) {
      return config.allowKeys || (boundLoopback && context.loopback);
    },
    requireCredentials(auth) {
      authorized = auth === undefined ? undefined : createBasicAuthCheck(auth);
    },
  };
}

/** The JSON-RPC error body of a refusal. */
export function refusalBody(refusal: Refusal): string {
  return JSON.stringify(
    errorResponse(null, jsonRpcError(refusal.code, refusal.reason, refusal.message)),
  );
}
