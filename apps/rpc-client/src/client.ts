import {
  type AnyParam,
  type Catalogue,
  catalogue,
  type MethodGroup,
  type MethodName,
  type ParamsOf,
  type PushEvent,
  type PushResults,
  type ResultOf,
  withDefaults,
} from '@chain/spec';
import { AmountError, RpcError, TransportError } from './errors.js';
import { createHttpTransport, type HttpTransport } from './http-transport.js';
import {
  PushConnection,
  type SubscribeParams,
  type Subscription,
  type WebSocketConstructor,
} from './push-connection.js';
import { isRetriableCall } from './read-methods.js';

export interface ClientOptions {
  /** The node's JSON-RPC endpoint, e.g. `http://127.0.0.1:9713`. */
  url: string;
  /** Per attempt: the whole response must arrive within this time. */
  timeoutMs?: number;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** HTTP basic authentication. */
  auth?: { user: string; password: string };
  /**
   * Extra attempts for idempotent reads (and sendTo/sendToken with a reference) after a network
   * error, a timeout, a 429/502/503/504, or the node's 408 (the request did not reach it whole).
   */
  retries?: number;
  /** Delay before the first retry; doubled for each further one. */
  retryDelayMs?: number;
  /** The fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /**
   * The WebSocket implementation of `subscribe` (default: the global WebSocket of browsers and
   * Node 22+; in Node 20 pass `WebSocket` of the `ws` package).
   */
  WebSocket?: WebSocketConstructor;
  /**
   * Whether a dropped push socket reconnects and resubscribes from where it was (default true).
   * With false, its subscriptions end with it: their `ended` rejects with the TransportError
   * (NETWORK), for a program that should stop when the node goes away (`chain-node watch`).
   */
  reconnect?: boolean;
  /** First delay before a dropped push socket reconnects; doubled up to maxReconnectDelayMs. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

export const DEFAULT_CLIENT_OPTIONS = {
  timeoutMs: 30_000,
  retries: 2,
  retryDelayMs: 100,
  reconnect: true,
  reconnectDelayMs: 250,
  maxReconnectDelayMs: 10_000,
} as const satisfies Partial<ClientOptions>;

/** The params argument of method M: optional exactly when all of M's params are. */
export type ParamsArgs<M extends MethodName> =
  Partial<ParamsOf<M>> extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>];

export type MethodFunction<M extends MethodName> = (
  ...params: ParamsArgs<M>
) => Promise<ResultOf<M>>;

/** The methods of one catalogue group, each a function of its params. */
export type GroupMethods<G extends MethodGroup> = {
  readonly [M in MethodName as Catalogue[M]['group'] extends G ? M : never]: MethodFunction<M>;
};

/** One call of a batch. */
export type BatchCall = {
  [M in MethodName]: Partial<ParamsOf<M>> extends ParamsOf<M>
    ? { method: M; params?: ParamsOf<M> }
    : { method: M; params: ParamsOf<M> };
}[MethodName];

/** The outcome of each call of a batch, in the order of the calls. */
export type BatchResults<C extends readonly BatchCall[]> = {
  -readonly [I in keyof C]: C[I] extends { method: infer M extends MethodName }
    ? ResultOf<M> | RpcError
    : never;
};

/** The method groups of a client: every group but push (subscribe below works over WebSocket). */
export type ClientGroup = Exclude<MethodGroup, 'push'>;

export type ChainClient = {
  readonly [G in ClientGroup]: GroupMethods<G>;
} & {
  /** The endpoint this client talks to. */
  readonly url: string;
  /**
   * Calls one method. Resolves with its result; rejects with RpcError when the node answers with an
   * error, TransportError (TimeoutError) when no reply arrives.
   */
  call<M extends MethodName>(method: M, ...params: ParamsArgs<M>): Promise<ResultOf<M>>;
  /**
   * Sends the calls as one JSON-RPC batch. Resolves with one entry per call, in the order of the
   * calls: the result, or the RpcError of that call. Retried only when every call is a read.
   */
  batch<const C extends readonly BatchCall[]>(calls: C): Promise<BatchResults<C>>;
  /**
   * Hears an event pushed by the node over a WebSocket to the same port (opened at the first
   * subscribe, shared by all). With `onResult`, each result is passed to it; without, iterate the
   * subscription (`for await`). A dropped socket reconnects and resumes from the last height seen,
   * with nothing missed or repeated.
   */
  subscribe<E extends PushEvent>(
    event: E,
    params?: SubscribeParams,
    onResult?: (result: PushResults[E]) => void,
  ): Subscription<E>;
  /** Closes the push socket, ending every subscription (HTTP calls are unaffected). */
  close(): void;
};

interface JsonRpcReply {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export function createClient(given: ClientOptions): ChainClient {
  const options = withDefaults(DEFAULT_CLIENT_OPTIONS, given);
  const { url, credentials } = splitCredentials(options.url);
  const auth = options.auth ?? credentials;
  const headers: Record<string, string> = { ...options.headers };
  if (auth !== undefined) headers.authorization = basicAuthorization(auth.user, auth.password);
  const transport: HttpTransport = createHttpTransport({
    url,
    timeoutMs: options.timeoutMs,
    headers,
    retries: options.retries,
    retryDelayMs: options.retryDelayMs,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
  });
  let nextId = 1;

  function request(method: string, params: unknown): { id: number; body: object } {
    checkAmounts(method, params);
    const id = nextId++;
    return { id, body: { jsonrpc: '2.0', method, params: params ?? {}, id } };
  }

  async function call(method: string, params?: unknown): Promise<unknown> {
    const { body } = request(method, params);
    const reply = await transport.post(JSON.stringify(body), isRetriableCall(method, params));
    // Some replies carry a fixed id instead of the request's (SPEC, protocol rule 3): with one call
    // in flight per request the reply needs no matching.
    const single = asReply(reply.body);
    if (single === undefined) {
      throw invalidResponse(`the reply to ${method} is not a JSON-RPC reply`);
    }
    return outcome(single, method, true);
  }

  async function batch(calls: readonly BatchCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const requests = calls.map((entry) => request(entry.method, entry.params));
    const retryable = calls.every((entry) => isRetriableCall(entry.method, entry.params));
    const reply = await transport.post(
      JSON.stringify(requests.map((entry) => entry.body)),
      retryable,
    );
    if (!Array.isArray(reply.body)) {
      // The batch as a whole was refused (too many calls, body too large, ...).
      const single = asReply(reply.body);
      if (single?.error !== undefined) throw toRpcError(single.error);
      throw invalidResponse('the reply to a batch is not an array of JSON-RPC replies');
    }
    const byId = new Map<string, JsonRpcReply>();
    for (const item of reply.body) {
      const entry = asReply(item);
      if (entry === undefined) throw invalidResponse('a batch reply entry is not a JSON-RPC reply');
      byId.set(String(entry.id), entry);
    }
    return requests.map(({ id }, index) => {
      const entry = byId.get(String(id));
      if (entry === undefined) {
        throw invalidResponse(`the batch reply has no entry for call ${index} (id ${id})`);
      }
      return outcome(entry, calls[index].method, false);
    });
  }

  let push: PushConnection | undefined;
  const pushConnection = () =>
    (push ??= new PushConnection({
      url: url.replace(/^http/, 'ws'),
      headers,
      ...(options.WebSocket === undefined ? {} : { WebSocket: options.WebSocket }),
      reconnect: options.reconnect,
      reconnectDelayMs: options.reconnectDelayMs,
      maxReconnectDelayMs: options.maxReconnectDelayMs,
    }));

  const client: Record<string, unknown> = {
    url,
    call,
    batch,
    subscribe(event: PushEvent, params: SubscribeParams = {}, onResult?: (r: unknown) => void) {
      return pushConnection().subscribe(event, params, onResult);
    },
    close() {
      push?.close();
      push = undefined;
    },
  };
  for (const [name, spec] of Object.entries(catalogue)) {
    if (spec.group === 'push') continue;
    client[spec.group] ??= {};
    (client[spec.group] as Record<string, unknown>)[name] = (params?: unknown) =>
      call(name, params);
  }
  return client as ChainClient;
}

/**
 * Amounts go out as the decimal strings the caller wrote, never through a JS number: a number given
 * to an amount param (from untyped JavaScript) is refused before anything is sent, since it may
 * already be rounded (`0.1 + 0.2`, `12345678901234567891`), and a bigint would be taken for whole
 * coins rather than base units.
 */
function checkAmounts(method: string, params: unknown): void {
  if (typeof params !== 'object' || params === null) return;
  const spec = (catalogue as Record<string, { params: Record<string, AnyParam> }>)[method]?.params;
  if (spec === undefined) return;
  Object.entries(spec).forEach(([name, param], index) => {
    if (param.kind !== 'amount') return;
    const value = Array.isArray(params) ? params[index] : (params as Record<string, unknown>)[name];
    if (typeof value === 'number' || typeof value === 'bigint') {
      throw new AmountError(
        'INVALID_AMOUNT',
        `${method}: '${name}' must be a decimal string like "1.5" (parseUnits/formatUnits convert base units), got the ${typeof value} ${String(value)}`,
      );
    }
  });
}

/** The result of a reply; its error as an RpcError, thrown or returned. */
function outcome(reply: JsonRpcReply, method: string, throwErrors: boolean): unknown {
  if (reply.error !== undefined) {
    const error = toRpcError(reply.error);
    if (throwErrors) throw error;
    return error;
  }
  if (!('result' in reply)) throw invalidResponse(`the reply to ${method} has no result`);
  return reply.result;
}

function asReply(value: unknown): JsonRpcReply | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const reply = value as Partial<JsonRpcReply>;
  if (reply.jsonrpc !== '2.0') return undefined;
  if (reply.error !== undefined) {
    const { error } = reply;
    if (typeof error !== 'object' || error === null || typeof error.code !== 'number') {
      return undefined;
    }
  } else if (!('result' in reply)) {
    return undefined;
  }
  return reply as JsonRpcReply;
}

function toRpcError(error: NonNullable<JsonRpcReply['error']>): RpcError {
  const message = typeof error.message === 'string' ? error.message : `error ${error.code}`;
  return new RpcError(error.code, message, error.data);
}

function invalidResponse(message: string): TransportError {
  return new TransportError('INVALID_RESPONSE', message);
}

/**
 * fetch refuses URLs with credentials (`http://user:pass@host/`): take them out and send them as
 * basic authentication instead, so they also never appear in messages.
 */
function splitCredentials(url: string): {
  url: string;
  credentials?: { user: string; password: string };
} {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url }; // fetch reports the bad URL on the first call
  }
  if (parsed.username === '' && parsed.password === '') return { url };
  const credentials = {
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, credentials };
}

function basicAuthorization(user: string, password: string): string {
  // btoa takes Latin-1 only: encode UTF-8 bytes first (RFC 7617 charset=UTF-8).
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
