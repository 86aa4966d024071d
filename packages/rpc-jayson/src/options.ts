import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  CallStat,
  HandlerParamsOf,
  HandlerResultOf,
  MethodGroup,
  MethodName,
  MethodOfGroup,
} from '@chain/spec';
import type { MethodCounter } from './call-stats.js';

/** A pino-compatible structured logger. */
export interface Logger {
  /** pino's: lets per-call debug records cost nothing while debug is off. */
  isLevelEnabled?(level: string): boolean;
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What a handler knows about the call besides its params. */
export interface CallContext {
  /** The peer's address as seen on the socket. */
  remoteAddress: string;
  /** True when the peer is on a loopback address. */
  loopback: boolean;
  /** The WebSocket connection the call came on (push-websocket.ts); absent over HTTP. */
  push?: PushChannel;
}

/** A subscription of a WebSocket connection: what the event source sends its results through. */
export interface PushSubscription {
  /** The id the client was given (the `subscription` of each notification). */
  readonly id: string;
  /** False once unsubscribed or its connection closed: the source stops then. */
  readonly active: boolean;
  /** Sends one notification (JSON-serialisable result); does nothing once inactive. */
  send(result: unknown): void;
  /**
   * Resolves once the connection's queue is under half its limit (at once when it is): a source
   * sending a long history waits on it, so a client that reads is never cut off for its backlog.
   */
  drained(): Promise<void>;
}

/** The push side of one WebSocket connection, as a handler sees it. */
export interface PushChannel {
  /**
   * Opens a subscription; `stop` runs once when it ends (unsubscribe, connection closed). Throws
   * SUBSCRIPTION_LIMIT past the connection's limit. Notifications sent before the reply to the call
   * that opened it are held until that reply is on its way.
   */
  open(stop: () => void): PushSubscription;
  /** Ends one of this connection's subscriptions; false when it has no such subscription. */
  close(id: string): boolean;
}

/** Answers one GET path of the RPC port (the HTTP front's route table). */
export type GetRoute = (req: IncomingMessage, res: ServerResponse) => void;

export type Handler<M extends MethodName> = (
  params: HandlerParamsOf<M>,
  context: CallContext,
) => Promise<HandlerResultOf<M>> | HandlerResultOf<M>;

/** One handler per catalogue method; the server answers NOT_AVAILABLE for the missing ones. */
export type Handlers = { [M in MethodName]: Handler<M> };

/** The methods the server answers itself (createRpcServer's built-ins). */
export type BuiltInMethod = 'rpcCallStats' | 'nodeUptime' | 'unsubscribe' | 'rpc.discover';

/** What an application serves: a handler for every catalogue method but the built-ins. */
export type ServedHandlers = Omit<Handlers, BuiltInMethod>;

/** The handlers of one catalogue group (the built-ins left out): a missing one is a type error. */
export type GroupHandlers<G extends MethodGroup> = Pick<
  ServedHandlers,
  Exclude<MethodOfGroup<G>, BuiltInMethod>
>;

export interface RpcAuth {
  user: string;
  password: string;
}

export interface RpcServerOptions {
  /** Interface to bind. Anything but loopback requires `auth` or `cookieFile`. */
  host: string;
  /** TCP port; 0 picks an ephemeral port. */
  port: number;
  /** Largest request body; larger ones get HTTP 413 and the connection is closed. */
  maxBodyBytes: number;
  /** Largest batch; larger ones get one -32600 error. */
  maxBatch: number;
  /** Calls in flight at once; beyond it requests get HTTP 503 with error -32005 (BUSY). */
  maxConcurrent: number;
  /** Time allowed to receive the request headers. */
  headersTimeoutMs: number;
  /** Time allowed to receive the whole request. */
  requestTimeoutMs: number;
  /** Idle time before a kept-alive connection is closed. */
  keepAliveTimeoutMs: number;
  /** Extra Host header names; localhost, 127.0.0.1, [::1] and the bound host are always allowed. */
  allowedHosts: string[];
  /** Exact origins allowed by CORS; empty = no CORS headers at all. */
  corsOrigins: string[];
  /** HTTP Basic credentials required on every request. */
  auth?: RpcAuth;
  /**
   * When set and `auth` is not: a file written at start holding `__cookie__:<64 hex>` (mode 0600),
   * required as Basic credentials, deleted on close.
   */
  cookieFile?: string;
  /** Allow key-material methods (dumpPrivateKey, privSendTo, ...) off loopback. */
  allowKeys: boolean;
  /**
   * GET routes by exact path (query ignored), e.g. probes: tried before `onGet`, after the same
   * Host and credential checks as every call.
   */
  getRoutes?: Readonly<Record<string, GetRoute>>;
  /**
   * GET routes by exact path answered before the Host and credential checks: probes (`/health`,
   * `/ready`) that reveal nothing, for load balancers and orchestrators that send neither
   * credentials nor an allowed Host (docs/decisions.md).
   */
  probeRoutes?: Readonly<Record<string, GetRoute>>;
  /** Handles the other GET requests (returns true when it answered); without it GET gets 405. */
  onGet?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Decides whether an address is loopback (injectable for tests). */
  isLoopbackAddress: (address: string) => boolean;
  /**
   * Results of `cacheable` methods kept (as JSON) until `stateVersion` moves; 0 turns the cache
   * off. Without `stateVersion` nothing is cached.
   */
  resultCacheEntries: number;
  /**
   * A number that changes whenever anything a `cacheable` method reads changes (the node: chain
   * state revision + key store revision, both only ever growing).
   */
  stateVersion?: () => number;
  /** WebSocket connections open at once, all clients together; beyond it an upgrade gets HTTP 503. */
  wsMaxConnections: number;
  /** WebSocket connections open at once from one IP address; beyond it an upgrade gets HTTP 503. */
  wsMaxConnectionsPerIp: number;
  /** Subscriptions open at once on one WebSocket connection (SUBSCRIPTION_LIMIT beyond). */
  wsMaxSubscriptions: number;
  /** Largest WebSocket message a client may send; larger closes the connection (code 1009). */
  wsMaxMessageBytes: number;
  /**
   * Most bytes a WebSocket connection may have queued for sending (replies and notifications the
   * client has not read); past it the client is disconnected with close code 1008.
   */
  wsMaxBufferedBytes: number;
  /**
   * Upper bounds (seconds) of the per-method call duration histogram that `methodCounters()`
   * exposes for metrics; undefined keeps no histogram (nothing counted per call beyond the stats).
   */
  durationBucketsSeconds?: readonly number[];
  /** The API version rpc.discover's document states (the node's version). */
  apiVersion: string;
}

/** True for 127.0.0.0/8, ::1, IPv4-mapped loopback and the name localhost. */
export function isLoopbackAddress(address: string): boolean {
  if (address === '::1' || address === 'localhost' || address === '[::1]') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.');
}

export const DEFAULT_RPC_SERVER_OPTIONS: Readonly<RpcServerOptions> = Object.freeze({
  host: '127.0.0.1',
  port: 9713,
  maxBodyBytes: 1024 * 1024,
  maxBatch: 1000,
  maxConcurrent: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  allowedHosts: [],
  corsOrigins: [],
  allowKeys: false,
  isLoopbackAddress,
  resultCacheEntries: 10_000,
  wsMaxConnections: 1000,
  wsMaxConnectionsPerIp: 100,
  wsMaxSubscriptions: 100,
  wsMaxMessageBytes: 1024 * 1024,
  wsMaxBufferedBytes: 4 * 1024 * 1024,
  apiVersion: '0.0.0',
});

export interface CreateRpcServerOptions extends Partial<RpcServerOptions> {
  handlers: Partial<Handlers>;
  log?: Logger;
}

export interface RpcServerAddress {
  host: string;
  port: number;
  url: string;
}

export interface RpcServer {
  /** Binds and listens; writes the cookie file when configured. */
  start(): Promise<RpcServerAddress>;
  /** Stops listening, closes connections and deletes the cookie file. Idempotent. */
  close(): Promise<void>;
  /** Per-method call statistics sorted by method, TOTAL last (what rpcCallStats returns). */
  callStats(): CallStat[];
  /**
   * The live per-method counters behind rpcCallStats (calls, errors, time, durations when
   * `durationBucketsSeconds` is set), for a metrics collector to read at scrape time.
   */
  methodCounters(): readonly Readonly<MethodCounter>[];
  /** Whole seconds since start (what nodeUptime returns); 0 before start. */
  uptimeSeconds(): number;
  /** `http://host:port/` once started; empty before. */
  readonly url: string;
}

// The server's "did you mean" rule, on this light entry too: `chain-node call` suggests the same.
export { didYouMean } from './did-you-mean.js';
