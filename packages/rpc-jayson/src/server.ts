/**
 * The JSON-RPC 2.0 HTTP front end: our own node:http server (limits, timeouts, Host allowlist, CORS,
 * authentication, exact content type), request validation and param coercion from the catalogue,
 * then dispatch through jayson's promise server. Responses carry the request id as a string.
 */
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import jayson from 'jayson/promise/index.js';
import {
  createBasicAuthCheck,
  createHostCheck,
  deleteCookieFile,
  hostOfHeader,
  writeCookieFile,
} from './access.js';
import { callStatsTable, type MethodCounter } from './call-stats.js';
import { catalogue, type MethodName, type MethodSpec } from './catalogue/index.js';
import { answerClientError } from './client-errors.js';
import { coerceParams, compileParamTable, type ParamTable } from './coercion.js';
import { didYouMeanHint } from './did-you-mean.js';
import { recoverDuplicateKeys } from './duplicate-keys.js';
import { jsonRpcError, RpcConfigError, RpcError, RpcErrorCode, toJsonRpcError } from './errors.js';
import { RequestBody } from './exact-json.js';
import {
  type AnyHandler,
  invokeHandler,
  isThenable,
  type JaysonCallback,
} from './invoke-handler.js';
import {
  type CallContext,
  type CreateRpcServerOptions,
  DEFAULT_RPC_SERVER_OPTIONS,
  type RpcServer,
  type RpcServerAddress,
  type RpcServerOptions,
} from './options.js';
import {
  errorResponse,
  INTERNAL_ERROR,
  invalidRequest,
  type JsonRpcResponse,
  nestedId,
  PARSE_ERROR_BODY,
  type Reply,
  serializedResult,
} from './replies.js';
import {
  exactRequest,
  isPlainObject,
  moveBesideMethod,
  responseId,
  TOO_DEEP_MESSAGE,
} from './request-shape.js';
import { ResultCache, resultCacheKey } from './result-cache.js';

type MaybePromise<T> = T | Promise<T>;
type JaysonMethod = (params: unknown, context: CallContext, callback: JaysonCallback) => void;

interface CompiledMethod {
  readonly name: MethodName;
  readonly spec: MethodSpec;
  readonly table: ParamTable;
  readonly keyMaterial: boolean;
  readonly cacheable: boolean;
  readonly counter: MethodCounter;
}

/** Per HTTP request: who is calling, and the body (read exactly, or re-read for repeated keys). */
interface RequestState {
  readonly context: CallContext;
  readonly body: RequestBody;
}

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;
const AUTH_FAILURE_DELAY_MS = 250;
const LARGE_BODY_CHARS = 4096;
const MAX_ECHOED_METHOD_LENGTH = 64;

function withoutUndefined<T extends object>(options: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(options) as (keyof T)[]) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out;
}

function echoName(name: string): string {
  return name.length > MAX_ECHOED_METHOD_LENGTH
    ? `${name.slice(0, MAX_ECHOED_METHOD_LENGTH)}...`
    : name;
}

function notAvailable(name: string): AnyHandler {
  return () => {
    throw new RpcError(
      RpcErrorCode.NOT_AVAILABLE,
      'NOT_AVAILABLE',
      `method '${name}' is not available yet`,
    );
  };
}

export function createRpcServer(options: CreateRpcServerOptions): RpcServer {
  const { handlers, log, ...rest } = options;
  const config: RpcServerOptions = { ...DEFAULT_RPC_SERVER_OPTIONS, ...withoutUndefined(rest) };
  const isLoopback = config.isLoopbackAddress;
  const boundLoopback = isLoopback(config.host);
  const hostAllowed = createHostCheck(config.host, config.allowedHosts);
  const corsOrigins = new Set(config.corsOrigins);
  const methodNames = Object.keys(catalogue) as MethodName[];

  let startedAt: number | undefined;
  let httpServer: Server | undefined;
  let address: RpcServerAddress | undefined;
  let authorized: ((header: string | undefined) => boolean) | undefined;
  let closing: Promise<void> | undefined;
  let inFlight = 0;

  const builtIns: Partial<Record<MethodName, AnyHandler>> = {
    rpcCallStats: () => server.callStats(),
    nodeUptime: () => server.uptimeSeconds(),
  };

  const methods = new Map<string, CompiledMethod>();
  const jaysonMethods: Record<string, JaysonMethod> = {};
  for (const name of methodNames) {
    const spec: MethodSpec = catalogue[name];
    const handler =
      (handlers[name] as AnyHandler | undefined) ?? builtIns[name] ?? notAvailable(name);
    methods.set(name, {
      name,
      spec,
      table: compileParamTable(spec),
      keyMaterial: spec.keyMaterial === true,
      // Cached by their params as sent (so only methods whose params are all in `params`), and a
      // hit skips every check but the params': never a method that needs the caller checked.
      cacheable:
        spec.cacheable === true &&
        spec.keyMaterial !== true &&
        !spec.nestedResult &&
        spec.paramsBesideMethod === undefined &&
        spec.duplicateKeys === undefined,
      counter: { method: name, calls: 0, milliseconds: 0 },
    });
    jaysonMethods[name] = (params, context, callback) =>
      invokeHandler(handler, name, params, context, callback, log);
  }
  const dispatcher = new jayson.Server(jaysonMethods, { useContext: true });
  const stateVersion = options.stateVersion;
  const resultCache =
    stateVersion === undefined || config.resultCacheEntries === 0
      ? undefined
      : new ResultCache(stateVersion, config.resultCacheEntries);

  /**
   * The time the last call ended: in a batch, a call answered synchronously starts when the one
   * before it ended, which saves a clock read per call.
   */
  let clock = 0;

  function record(method: CompiledMethod, startedMs: number): void {
    clock = performance.now();
    const milliseconds = clock - startedMs;
    method.counter.calls++;
    method.counter.milliseconds += milliseconds;
    if (log !== undefined && log.isLevelEnabled?.('debug') !== false) {
      log.debug({ method: method.name, ms: milliseconds }, 'rpc call');
    }
  }

  /**
   * Runs the call through jayson. Synchronous handlers answer synchronously (no promise per call),
   * which keeps batches cheap.
   */
  function dispatch(
    method: CompiledMethod,
    params: Record<string, unknown>,
    id: string | null,
    notification: boolean,
    context: CallContext,
    startedMs: number,
  ): MaybePromise<JsonRpcResponse | undefined> {
    let settled = false;
    let value: JsonRpcResponse | undefined;
    let resolveLater: ((response: JsonRpcResponse | undefined) => void) | undefined;
    // jayson treats a null id as a notification; the real id is put back on the response.
    const request = notification
      ? { jsonrpc: '2.0', method: method.name, params }
      : { jsonrpc: '2.0', method: method.name, params, id: id ?? '' };
    dispatcher.call(request, context, (failed: unknown, succeeded: unknown) => {
      record(method, startedMs);
      let response = (failed ?? succeeded) as JsonRpcResponse | undefined;
      if (notification) response = undefined;
      else if (response !== undefined) {
        response.id = id;
        if (method.spec.nestedResult && response.error === undefined) {
          response.result = { result: response.result, id: nestedId(id), jsonrpc: '2.0' };
        }
      }
      if (resolveLater === undefined) {
        settled = true;
        value = response;
      } else resolveLater(response);
    });
    if (settled) return value;
    return new Promise((resolve) => {
      resolveLater = resolve;
    });
  }

  /** One request object of a body: a response, or undefined for a notification. */
  function processCall(
    entry: unknown,
    state: RequestState,
    batchIndex: number | undefined,
  ): MaybePromise<Reply | undefined> {
    if (!isPlainObject(entry)) return invalidRequest(null, 'request must be an object');
    const name = entry.method;
    const method = typeof name === 'string' ? methods.get(name) : undefined;
    const request = exactRequest(entry, state.body, batchIndex, method?.spec.paramsBesideMethod);
    if (request === undefined) return invalidRequest(null, TOO_DEEP_MESSAGE);
    const notification = request.id === undefined;
    const id = responseId(request.id);
    if (id === undefined) return invalidRequest(null, 'id must be a string, a number or null');
    if (request.jsonrpc !== '2.0') return invalidRequest(id, "jsonrpc must be exactly '2.0'");
    if (typeof name !== 'string') return invalidRequest(id, 'method must be a string');
    let params: unknown = request.params;
    if (params !== undefined && !isPlainObject(params) && !Array.isArray(params)) {
      return invalidRequest(id, 'params must be an object or an array');
    }

    if (method === undefined) {
      if (notification) return undefined;
      return errorResponse(
        id,
        jsonRpcError(
          RpcErrorCode.METHOD_NOT_FOUND,
          'METHOD_NOT_FOUND',
          `method '${echoName(name)}' not found${didYouMeanHint(name, methodNames)}`,
        ),
      );
    }

    const startedMs = batchIndex === undefined ? performance.now() : clock;
    // A repeat is found by its params as sent: coercion is a pure function of them, and only
    // params that coerced without error ever had a result kept.
    const cacheKey =
      method.cacheable && !notification && resultCache !== undefined
        ? resultCacheKey(name, params)
        : undefined;
    if (cacheKey !== undefined) {
      const cached = resultCache!.get(cacheKey);
      if (cached !== undefined) {
        record(method, startedMs);
        return serializedResult(id, cached);
      }
    }
    const { spec } = method;
    let coerced: Record<string, unknown>;
    try {
      if (method.keyMaterial && !config.allowKeys && !(boundLoopback && state.context.loopback)) {
        throw new RpcError(
          RpcErrorCode.KEYS_NOT_ALLOWED,
          'KEYS_NOT_ALLOWED',
          `method '${name}' uses private keys and is refused off loopback; the server must be started with allowKeys`,
        );
      }
      if (spec.paramsBesideMethod !== undefined) {
        params = moveBesideMethod(request, params, spec.paramsBesideMethod);
      }
      if (spec.duplicateKeys !== undefined && isPlainObject(params)) {
        params = recoverDuplicateKeys(
          state.body.syntaxTree,
          batchIndex,
          spec.duplicateKeys,
          params,
        );
      }
      coerced = coerceParams(method.table, params);
    } catch (err) {
      record(method, startedMs);
      return notification ? undefined : errorResponse(id, toJsonRpcError(err, log, name));
    }
    if (cacheKey !== undefined) {
      return dispatchAndKeep(resultCache!, cacheKey, method, coerced, id, state.context, startedMs);
    }
    return dispatch(method, coerced, id, notification, state.context, startedMs);
  }

  /** A cacheable call not in the cache: run, and its result kept for the next caller. */
  function dispatchAndKeep(
    cache: ResultCache,
    key: string,
    method: CompiledMethod,
    params: Record<string, unknown>,
    id: string | null,
    context: CallContext,
    startedMs: number,
  ): MaybePromise<Reply | undefined> {
    const version = cache.versionNow();
    const keep = (response: JsonRpcResponse | undefined): Reply | undefined => {
      if (response === undefined || response.error !== undefined) return response;
      let json: string;
      try {
        json = JSON.stringify(response.result);
      } catch {
        return response; // serialize() answers -32603 for it
      }
      cache.set(key, json, version);
      return serializedResult(id, json);
    };
    const response = dispatch(method, params, id, false, context, startedMs);
    return isThenable(response) ? response.then(keep) : keep(response);
  }

  function sendJson(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: string,
    close = false,
    extraHeaders?: OutgoingHttpHeaders,
  ): void {
    // A large body (a batch) is encoded once here instead of measured and then encoded again.
    const payload = body.length > LARGE_BODY_CHARS ? Buffer.from(body, 'utf8') : body;
    const headers: OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
      ...extraHeaders,
    };
    const origin = req.headers.origin;
    if (origin !== undefined && corsOrigins.has(origin)) {
      headers['access-control-allow-origin'] = origin;
      headers.vary = 'Origin';
      if (authorized !== undefined) headers['access-control-allow-credentials'] = 'true';
    }
    if (close) headers.connection = 'close';
    res.writeHead(status, headers);
    res.end(payload);
  }

  /** An HTTP-level refusal with a JSON-RPC error body; the connection is closed (body unread). */
  function refuse(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    code: number,
    reason: string,
    message: string,
    extraHeaders?: OutgoingHttpHeaders,
  ): void {
    const body = JSON.stringify(errorResponse(null, jsonRpcError(code, reason, message)));
    sendJson(req, res, status, body, true, extraHeaders);
  }

  function sendNoContent(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (origin !== undefined && corsOrigins.has(origin)) {
      res.writeHead(204, { 'access-control-allow-origin': origin, vary: 'Origin' });
    } else {
      res.writeHead(204);
    }
    res.end();
  }

  function preflight(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (origin === undefined || !corsOrigins.has(origin)) {
      refuse(
        req,
        res,
        403,
        RpcErrorCode.ORIGIN_NOT_ALLOWED,
        'ORIGIN_NOT_ALLOWED',
        'origin not allowed',
      );
      return;
    }
    const headers: OutgoingHttpHeaders = {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-max-age': '600',
      vary: 'Origin',
    };
    if (authorized !== undefined) headers['access-control-allow-credentials'] = 'true';
    res.writeHead(204, headers);
    res.end();
  }

  async function handleBody(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
  ): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      sendJson(req, res, 200, PARSE_ERROR_BODY);
      return;
    }
    const remoteAddress = req.socket.remoteAddress ?? '';
    const state: RequestState = {
      context: { remoteAddress, loopback: isLoopback(remoteAddress) },
      body: new RequestBody(body, parsed),
    };
    if (!Array.isArray(parsed)) {
      const response = processCall(parsed, state, undefined);
      if (isThenable(response)) response.then((settled) => reply(req, res, settled));
      else reply(req, res, response);
      return;
    }
    if (parsed.length === 0) {
      sendJson(req, res, 200, JSON.stringify(invalidRequest(null, 'empty batch')));
      return;
    }
    if (parsed.length > config.maxBatch) {
      const message = `batch too large (${parsed.length} > ${config.maxBatch})`;
      sendJson(req, res, 200, JSON.stringify(invalidRequest(null, message)));
      return;
    }
    const results: MaybePromise<Reply | undefined>[] = new Array(parsed.length);
    let pending = false;
    clock = performance.now();
    for (let i = 0; i < parsed.length; i++) {
      const result = processCall(parsed[i], state, i);
      if (isThenable(result)) pending = true;
      results[i] = result;
    }
    if (pending) Promise.all(results).then((settled) => replyBatch(req, res, settled));
    else replyBatch(req, res, results as (Reply | undefined)[]);
  }

  function reply(req: IncomingMessage, res: ServerResponse, response: Reply | undefined) {
    if (response === undefined) sendNoContent(req, res);
    else sendJson(req, res, 200, serialize(response));
  }

  /** One response as JSON; a result JSON cannot hold (a bigint, a cycle) becomes -32603. */
  function serialize(response: Reply): string {
    if (typeof response === 'string') return response;
    try {
      return JSON.stringify(response);
    } catch (err) {
      log?.error({ err }, 'RPC result is not serialisable');
      return JSON.stringify(errorResponse(response.id, INTERNAL_ERROR));
    }
  }

  function replyBatch(
    req: IncomingMessage,
    res: ServerResponse,
    settled: (Reply | undefined)[],
  ): void {
    const responses = settled.filter((response) => response !== undefined);
    if (responses.length === 0) {
      sendNoContent(req, res);
      return;
    }
    let body: string | undefined;
    if (!responses.some((response) => typeof response === 'string')) {
      try {
        body = JSON.stringify(responses);
      } catch {
        // one of them cannot be serialised: each on its own below
      }
    }
    sendJson(req, res, 200, body ?? `[${responses.map(serialize).join(',')}]`);
  }

  function readBody(req: IncomingMessage, res: ServerResponse): void {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > config.maxBodyBytes) {
      tooLarge(req, res);
      return;
    }
    inFlight++;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        inFlight--;
      }
    };
    res.once('close', release);
    const chunks: Buffer[] = [];
    let size = 0;
    let overflowed = false;
    req.on('data', (chunk: Buffer) => {
      if (overflowed) return;
      size += chunk.length;
      if (size > config.maxBodyBytes) {
        overflowed = true;
        chunks.length = 0;
        tooLarge(req, res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (overflowed) return;
      const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString(
        'utf8',
      );
      try {
        handleBody(req, res, body);
      } catch (err) {
        log?.error({ err }, 'RPC request failed');
        if (!res.headersSent) {
          refuse(req, res, 500, RpcErrorCode.INTERNAL_ERROR, 'INTERNAL_ERROR', 'Internal error');
        }
      }
    });
    req.on('error', release);
  }

  function tooLarge(req: IncomingMessage, res: ServerResponse): void {
    req.pause();
    const message = `request body too large (limit ${config.maxBodyBytes} bytes)`;
    const body = JSON.stringify(
      errorResponse(null, jsonRpcError(RpcErrorCode.BODY_TOO_LARGE, 'BODY_TOO_LARGE', message)),
    );
    res.writeHead(413, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    // Stop reading at once: the rest of the body is never buffered.
    res.end(body, () => req.socket.destroy());
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (!hostAllowed(req.headers.host)) {
      const host = req.headers.host === undefined ? '' : hostOfHeader(req.headers.host);
      refuse(
        req,
        res,
        403,
        RpcErrorCode.HOST_NOT_ALLOWED,
        'HOST_NOT_ALLOWED',
        `host '${echoName(host)}' not allowed`,
      );
      return;
    }
    // A preflight (OPTIONS with an Origin) is answered as such even when no origin is configured:
    // 403 ORIGIN_NOT_ALLOWED tells the browser's caller what is wrong, a 405 would not.
    if (req.method === 'OPTIONS' && (corsOrigins.size > 0 || req.headers.origin !== undefined)) {
      preflight(req, res);
      return;
    }
    if (authorized !== undefined && !authorized(req.headers.authorization)) {
      const timer = setTimeout(() => {
        refuse(
          req,
          res,
          401,
          RpcErrorCode.UNAUTHORIZED,
          'UNAUTHORIZED',
          'authentication required',
          {
            'www-authenticate': 'Basic realm="chain-node", charset="UTF-8"',
          },
        );
      }, AUTH_FAILURE_DELAY_MS);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    if (req.method !== 'POST') {
      if (req.method === 'GET' && config.onGet?.(req, res)) return;
      refuse(
        req,
        res,
        405,
        RpcErrorCode.HTTP_METHOD_NOT_ALLOWED,
        'HTTP_METHOD_NOT_ALLOWED',
        'JSON-RPC requests must use POST',
        { allow: 'POST' },
      );
      return;
    }
    const contentType = req.headers['content-type'];
    if (contentType === undefined || !JSON_CONTENT_TYPE.test(contentType)) {
      refuse(
        req,
        res,
        415,
        RpcErrorCode.UNSUPPORTED_MEDIA_TYPE,
        'UNSUPPORTED_MEDIA_TYPE',
        'Content-Type must be application/json',
      );
      return;
    }
    if (inFlight >= config.maxConcurrent) {
      refuse(req, res, 503, RpcErrorCode.BUSY, 'BUSY', 'server busy: too many calls in flight', {
        'retry-after': '1',
      });
      return;
    }
    readBody(req, res);
  }

  async function start(): Promise<RpcServerAddress> {
    if (address !== undefined) return address;
    if (closing !== undefined) throw new RpcConfigError('CLOSED', 'the RPC server was closed');
    let auth = config.auth;
    if (!boundLoopback && auth === undefined && config.cookieFile === undefined) {
      throw new RpcConfigError(
        'AUTH_REQUIRED',
        `refusing to serve JSON-RPC on non-loopback host '${config.host}' without authentication: configure a user and password or a cookie file`,
        'host',
      );
    }
    if (auth === undefined && config.cookieFile !== undefined) {
      auth = await writeCookieFile(config.cookieFile);
    }
    authorized = auth === undefined ? undefined : createBasicAuthCheck(auth);
    const headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
    const created = createServer(
      {
        headersTimeout,
        requestTimeout: config.requestTimeoutMs,
        keepAliveTimeout: config.keepAliveTimeoutMs,
        // Timeouts are enforced at this granularity (Node's default is 30 s).
        connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
      },
      onRequest,
    );
    httpServer = created;
    await new Promise<void>((resolve, reject) => {
      created.once('error', reject);
      created.listen(config.port, config.host, () => {
        created.off('error', reject);
        resolve();
      });
    }).catch(async (err: unknown) => {
      httpServer = undefined;
      if (config.auth === undefined && config.cookieFile !== undefined) {
        await deleteCookieFile(config.cookieFile);
      }
      throw err;
    });
    created.on('error', (err) => log?.error({ err }, 'RPC server error'));
    created.on('clientError', answerClientError);
    const bound = created.address() as AddressInfo;
    const urlHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    address = { host: bound.address, port: bound.port, url: `http://${urlHost}:${bound.port}/` };
    startedAt = performance.now();
    log?.info({ url: address.url }, 'JSON-RPC server listening');
    return address;
  }

  async function stop(): Promise<void> {
    const running = httpServer;
    httpServer = undefined;
    if (running !== undefined) {
      await new Promise<void>((resolve) => {
        running.close(() => resolve());
        running.closeAllConnections();
      });
    }
    if (config.auth === undefined && config.cookieFile !== undefined) {
      await deleteCookieFile(config.cookieFile);
    }
  }

  const server: RpcServer = {
    start,
    close() {
      closing ??= stop();
      return closing;
    },
    callStats() {
      return callStatsTable([...methods.values()].map((method) => method.counter));
    },
    uptimeSeconds() {
      return startedAt === undefined ? 0 : Math.floor((performance.now() - startedAt) / 1000);
    },
    get url() {
      return address?.url ?? '';
    },
  };
  return server;
}
