/**
 * JSON-RPC 2.0 dispatch, whatever carries the request: the body's shape (batches, ids, the request
 * object), param coercion from the catalogue, the result cache, jayson dispatch and the call
 * statistics. A transport (the HTTP front, a WebSocket) hands it the body text and who is calling,
 * and sends back the reply text it returns; undefined means nothing to send (only notifications).
 */
import { performance } from 'node:perf_hooks';
import type { CallStat } from '@chain/spec';
import { catalogue, type MethodName, type MethodSpec } from '@chain/spec';
import type { JSONRPCError } from 'jayson';
import jayson from 'jayson/promise/index.js';
import { callStatsTable, DurationBuckets, type MethodCounter } from './call-stats.js';
import { coerceParams, compileParamTable, type ParamTable } from './coercion.js';
import { didYouMeanHint } from './did-you-mean.js';
import { recoverDuplicateKeys } from './duplicate-keys.js';
import {
  InvalidParamsError,
  jsonRpcError,
  RpcError,
  RpcErrorCode,
  toJsonRpcError,
} from './errors.js';
import { RequestBody } from './exact-json.js';
import {
  type AnyHandler,
  invokeHandler,
  isThenable,
  type JaysonCallback,
} from './invoke-handler.js';
import type { CallContext, Handlers, Logger } from './options.js';
import { keyPathText, type RepeatedKey } from './repeated-keys.js';
import {
  echoName,
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
type JaysonMethodObject = {
  execute(
    server: InstanceType<typeof jayson.Server>,
    params: unknown,
    context: CallContext,
    callback: (error: unknown, result?: unknown) => void,
  ): unknown;
};

export interface DispatcherOptions {
  handlers: Partial<Handlers>;
  /** Largest batch; larger ones get one -32600 error. */
  maxBatch: number;
  /** Whether a key-material method may run for this caller (an access rule of the transport's). */
  keysAllowed: (context: CallContext) => boolean;
  /** See RpcServerOptions.resultCacheEntries and stateVersion. */
  resultCacheEntries: number;
  stateVersion?: () => number;
  /** See RpcServerOptions.durationBucketsSeconds: the per-method duration histogram, if any. */
  durationBucketsSeconds?: readonly number[];
  log?: Logger;
}

export interface Dispatcher {
  /**
   * Answers one request body (a call or a batch): the reply text, or undefined when there is
   * nothing to answer (notifications only). Synchronous when every handler it runs is.
   */
  handle(body: string, context: CallContext): MaybePromise<string | undefined>;
  /** Per-method call statistics sorted by method, TOTAL last (what rpcCallStats returns). */
  callStats(): CallStat[];
  /** The live per-method counters (read at scrape time by a metrics collector; never written). */
  methodCounters(): readonly Readonly<MethodCounter>[];
}

interface CompiledMethod {
  readonly name: MethodName;
  /** jayson's method object: the dispatcher has checked the request, so it calls it directly. */
  readonly run: JaysonMethodObject;
  readonly spec: MethodSpec;
  readonly table: ParamTable;
  readonly keyMaterial: boolean;
  readonly cacheable: boolean;
  readonly counter: MethodCounter;
}

/** Per request body: who is calling, and the raw body for the duplicate-key re-read. */
interface RequestState {
  readonly context: CallContext;
  readonly body: RequestBody;
}

/** Whether a repeated key sits among the params: in `params`, or in a param given beside `method`. */
function amongParams({ path, key }: RepeatedKey, spec: MethodSpec | undefined): boolean {
  const beside = (name: unknown) => spec?.paramsBesideMethod?.includes(name as string) === true;
  // `params` itself repeated is a member of the request object, not a param.
  if (path.length === 0) return beside(key);
  return path[0] === 'params' || beside(path[0]);
}

/** A key repeated in the request object outside its params: a -32600 text. */
function repeatedMemberOfRequest(
  repeated: readonly RepeatedKey[],
  spec: MethodSpec | undefined,
): string | undefined {
  const member = repeated.find((entry) => !amongParams(entry, spec));
  if (member === undefined) return undefined;
  const name = echoName(keyPathText(member.path, member.key));
  return `member '${name}' is repeated in the request object: give each member once`;
}

/**
 * A key repeated among the params (in `params`, or a param beside `method`), but the ones the
 * method declares (`duplicateKeys`: blockchainStart's `mine`): a -32602 naming it.
 */
function repeatedParam(
  repeated: readonly RepeatedKey[],
  spec: MethodSpec,
): InvalidParamsError | undefined {
  for (const entry of repeated) {
    if (!amongParams(entry, spec)) continue;
    const { path, key } = entry;
    // Keys from the param down: `params` itself is not a param's name.
    const inner = path[0] === 'params' ? path.slice(1) : path;
    if (path[0] === 'params' && inner.length === 0 && spec.duplicateKeys?.[key] !== undefined) {
      continue;
    }
    const name = echoName(keyPathText(inner, key));
    const param = inner.length === 0 ? key : inner[0];
    const where =
      inner.length === 0
        ? `parameter '${name}' is repeated${path.length === 0 ? " beside 'method'" : ''}`
        : `key '${name}' is repeated in its object`;
    return new InvalidParamsError(
      `${where}: JSON keeps one value of a repeated key, so the request is ambiguous; give each key once`,
      typeof param === 'string' ? echoName(param) : undefined,
    );
  }
  return undefined;
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

/**
 * JSON-RPC 2.0 reserves `rpc.`-prefixed names for extensions such as OpenRPC's rpc.discover, and
 * jayson refuses to register them; the dispatcher resolves names itself, so jayson gets an alias.
 */
function jaysonNameOf(name: string): string {
  return name.startsWith('rpc.') ? `reserved:${name}` : name;
}

function isCacheable(spec: MethodSpec): boolean {
  // Cached by their params as sent (so only methods whose params are all in `params`), and a
  // hit skips every check but the params': never a method that needs the caller checked.
  return (
    spec.cacheable === true &&
    spec.keyMaterial !== true &&
    !spec.nestedResult &&
    spec.paramsBesideMethod === undefined &&
    spec.duplicateKeys === undefined
  );
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { handlers, log, maxBatch, keysAllowed, durationBucketsSeconds } = options;
  const methodNames = Object.keys(catalogue) as MethodName[];
  const jaysonMethods: Record<string, JaysonMethod> = {};
  for (const name of methodNames) {
    const handler = (handlers[name] as AnyHandler | undefined) ?? notAvailable(name);
    jaysonMethods[jaysonNameOf(name)] = (params, context, callback) =>
      invokeHandler(handler, name, params, context, callback, log);
  }
  const jaysonServer = new jayson.Server(jaysonMethods, { useContext: true });
  const methods = new Map<string, CompiledMethod>();
  for (const name of methodNames) {
    const spec: MethodSpec = catalogue[name];
    methods.set(name, {
      name,
      // The name jayson knows it by: jayson refuses the reserved `rpc.` names (jaysonNameOf).
      run: jaysonServer.getMethod(jaysonNameOf(name)) as unknown as JaysonMethodObject,
      spec,
      table: compileParamTable(spec),
      keyMaterial: spec.keyMaterial === true,
      cacheable: isCacheable(spec),
      counter: {
        method: name,
        calls: 0,
        errors: 0,
        milliseconds: 0,
        durations:
          durationBucketsSeconds === undefined
            ? undefined
            : new DurationBuckets(durationBucketsSeconds),
      },
    });
  }
  const stateVersion = options.stateVersion;
  const resultCache =
    stateVersion === undefined || options.resultCacheEntries === 0
      ? undefined
      : new ResultCache(stateVersion, options.resultCacheEntries);

  /**
   * A batch's synchronous calls share one clock read (per call, it was a tenth of a batch's
   * dispatch): while the batch's loop runs, `batchStart` is its start and the calls answered in
   * the loop wait in `unclocked`, each then credited with an equal share of the loop's time. A
   * call answered after the loop (a handler's promise) reads the clock itself, from the loop's start.
   */
  let batchStart: number | undefined;
  const unclocked: CompiledMethod[] = [];

  function debugEnabled(): boolean {
    return log !== undefined && log.isLevelEnabled?.('debug') !== false;
  }

  function observe(method: CompiledMethod, milliseconds: number, debug: boolean): void {
    const counter = method.counter;
    counter.milliseconds += milliseconds;
    counter.durations?.observe(milliseconds);
    if (debug) log!.debug({ method: method.name, ms: milliseconds }, 'rpc call');
  }

  function record(method: CompiledMethod, startedMs: number, failed: boolean): void {
    const counter = method.counter;
    counter.calls++;
    if (failed) counter.errors++;
    if (batchStart !== undefined) unclocked.push(method);
    else observe(method, performance.now() - startedMs, debugEnabled());
  }

  /** Ends a batch's loop: its synchronous calls share the time it took. */
  function clockBatch(startedMs: number): void {
    batchStart = undefined;
    if (unclocked.length === 0) return;
    const share = (performance.now() - startedMs) / unclocked.length;
    const debug = debugEnabled();
    for (const method of unclocked) observe(method, share, debug);
    unclocked.length = 0;
  }

  /**
   * Runs the call through jayson's method object, the request already checked here (jayson's own
   * request checks and routing would do it again). Synchronous handlers answer synchronously (no
   * promise per call), which keeps batches cheap.
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
    method.run.execute(jaysonServer, params, context, (error: unknown, result?: unknown) => {
      const failed = error != null;
      record(method, startedMs, failed);
      let response: JsonRpcResponse | undefined;
      if (!notification) {
        const rpcError = !failed
          ? undefined
          : jayson.utils.Response.isValidError(error, 2)
            ? (error as JSONRPCError)
            : jaysonServer.error(jayson.Server.errors.INTERNAL_ERROR);
        response = jayson.utils.response(rpcError, result, id, 2) as JsonRpcResponse;
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
    const repeated = state.body.repeatedKeys(batchIndex);
    const repeatedMember =
      repeated.length === 0 ? undefined : repeatedMemberOfRequest(repeated, method?.spec);
    if (repeatedMember !== undefined) {
      const ambiguousId = repeated.some(({ path, key }) => path.length === 0 && key === 'id');
      return invalidRequest(ambiguousId ? null : id, repeatedMember);
    }
    if (request.jsonrpc !== '2.0') return invalidRequest(id, "jsonrpc must be exactly '2.0'");
    if (typeof name !== 'string') return invalidRequest(id, 'method must be a string');
    let params: unknown = request.params;
    // One rule for every method, with params or without (JSON-RPC 2.0: a structured value or
    // nothing): `null` is refused like any other non-structured value.
    if (params !== undefined && !isPlainObject(params) && !Array.isArray(params)) {
      return invalidRequest(
        id,
        `params must be an object or an array, or left out${params === null ? ' (not null)' : ''}`,
      );
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

    // The spec types the nested reply's inner id (getNodePart) as an integer: one that cannot be
    // (a non-numeric string, a fraction, null, beyond 2^53) is refused, never echoed as another type.
    if (method.spec.nestedResult && !notification && typeof nestedId(id) !== 'number') {
      return invalidRequest(
        id,
        `${name} nests the request id in its result as an integer: its id must be a safe integer, got ${id === null ? 'null' : JSON.stringify(echoName(id))}`,
      );
    }

    const startedMs = batchStart ?? performance.now();
    // A repeat is found by its params as sent: coercion is a pure function of them, and only
    // params that coerced without error ever had a result kept.
    const cacheKey =
      method.cacheable && !notification && resultCache !== undefined
        ? resultCacheKey(name, params)
        : undefined;
    if (cacheKey !== undefined) {
      const cached = resultCache!.get(cacheKey);
      if (cached !== undefined) {
        record(method, startedMs, false);
        return serializedResult(id, cached);
      }
    }
    const { spec } = method;
    let coerced: Record<string, unknown>;
    try {
      if (method.keyMaterial && !keysAllowed(state.context)) {
        throw new RpcError(
          RpcErrorCode.KEYS_NOT_ALLOWED,
          'KEYS_NOT_ALLOWED',
          `method '${name}' uses private keys and is refused off loopback; the server must be started with allowKeys`,
        );
      }
      if (repeated.length > 0) {
        const refusal = repeatedParam(repeated, spec);
        if (refusal !== undefined) throw refusal;
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
      record(method, startedMs, true);
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

  function replyText(response: Reply | undefined): string | undefined {
    return response === undefined ? undefined : serialize(response);
  }

  function batchText(settled: (Reply | undefined)[]): string | undefined {
    const responses = settled.filter((response) => response !== undefined);
    if (responses.length === 0) return undefined;
    if (!responses.some((response) => typeof response === 'string')) {
      try {
        return JSON.stringify(responses);
      } catch {
        // one of them cannot be serialised: each on its own below
      }
    }
    return `[${responses.map(serialize).join(',')}]`;
  }

  function handleBatch(batch: unknown[], state: RequestState): MaybePromise<string | undefined> {
    if (batch.length === 0) return JSON.stringify(invalidRequest(null, 'empty batch'));
    if (batch.length > maxBatch) {
      const message = `batch too large (${batch.length} > ${maxBatch})`;
      return JSON.stringify(invalidRequest(null, message));
    }
    const results: MaybePromise<Reply | undefined>[] = new Array(batch.length);
    let pending = false;
    const startedMs = performance.now();
    batchStart = startedMs;
    try {
      for (let i = 0; i < batch.length; i++) {
        const result = processCall(batch[i], state, i);
        if (isThenable(result)) pending = true;
        results[i] = result;
      }
    } finally {
      clockBatch(startedMs);
    }
    if (pending) return Promise.all(results).then(batchText);
    return batchText(results as (Reply | undefined)[]);
  }

  function handle(body: string, context: CallContext): MaybePromise<string | undefined> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return PARSE_ERROR_BODY;
    }
    const state: RequestState = { context, body: new RequestBody(body, parsed) };
    if (Array.isArray(parsed)) return handleBatch(parsed, state);
    const response = processCall(parsed, state, undefined);
    return isThenable(response) ? response.then(replyText) : replyText(response);
  }

  return {
    handle,
    callStats() {
      return callStatsTable([...methods.values()].map((method) => method.counter));
    },
    methodCounters() {
      return [...methods.values()].map((method) => method.counter);
    },
  };
}
