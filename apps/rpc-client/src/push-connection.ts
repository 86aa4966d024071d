/**
 * Push over WebSocket (docs/rpc.md "Push"): one WebSocket per client, opened at the first
 * `subscribe`, carrying every subscription of the client. When the socket drops, it reconnects
 * (with a growing delay) and subscribes again from the last height it saw, dropping what it already
 * delivered: nothing is missed or delivered twice across a restart of the node.
 * Uses the global WebSocket (browsers, Node 22+) or the one given (the `ws` package in Node 20),
 * so the SDK itself depends on nothing.
 */
import { type BlockInfo, hasHistory, type PushEvent, type PushResults } from '@chain/spec';
import { crossOriginHint } from './cross-origin.js';
import { RpcError, TransportError } from './errors.js';

/**
 * An event handler property taking E. Its parameter is compared both ways (a method's, not a strict
 * function type's), so the handler properties of browsers' WebSocket and of the `ws` package, whose
 * event types carry more than the client reads (`MessageEvent`, `WebSocket.CloseEvent`, ...), fit
 * as they are: `createClient({ url, WebSocket })` with the WebSocket class of the `ws` package
 * needs no cast.
 */
type EventHandler<E> = { handle(event: E): void }['handle'];

/** The part of the WebSocket API the client uses (browsers' and the `ws` package's). */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: EventHandler<unknown> | null;
  onmessage: EventHandler<{ data: unknown }> | null;
  onclose: EventHandler<{ code: number; reason: string }> | null;
  onerror: EventHandler<unknown> | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** A WebSocket constructor; a third argument carries headers where supported (`ws`). */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: { headers?: Record<string, string> },
) => WebSocketLike;

export interface SubscribeParams {
  /** walletOperations: the wallet whose mined operations to hear. */
  wallet?: string;
  /** tokenTransfers: the token whose mined operations to hear. */
  token?: string;
  /** newBlocks, walletOperations, tokenTransfers: replay history from this block first. */
  fromBlock?: number;
}

/**
 * One subscription: an async iterator of its results (when no callback was given) and its end.
 */
export interface Subscription<E extends PushEvent> extends AsyncIterable<PushResults[E]> {
  /** Resolves once the node accepted the first subscribe (with its id); rejects with its error. */
  readonly ready: Promise<string>;
  /**
   * Settles when the subscription ends: resolves on `unsubscribe()` or the client's `close()`;
   * rejects with what ended it otherwise: the node's refusal (`RpcError`), or, with
   * `reconnect: false`, the connection that could not open or closed (`TransportError` NETWORK).
   */
  readonly ended: Promise<void>;
  /** Ends the subscription (and the socket, once it carries no other). */
  unsubscribe(): Promise<void>;
}

interface PushConnectionOptions {
  /** ws:// or wss:// URL of the node's RPC port. */
  url: string;
  headers: Readonly<Record<string, string>>;
  WebSocket?: WebSocketConstructor;
  /** Whether a dropped socket reconnects and resubscribes; if not, its subscriptions end with it. */
  reconnect: boolean;
  /** First delay before reconnecting; doubled up to `maxReconnectDelayMs`. */
  reconnectDelayMs: number;
  maxReconnectDelayMs: number;
}

interface PendingCall {
  /** Runs as the reply is read, before the next message (notifications may follow at once). */
  onReply?: (result: unknown) => void;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** What a subscription remembers to resume where it was. */
interface SubscriptionState {
  readonly event: PushEvent;
  readonly params: SubscribeParams;
  /** The node's id on the current socket. */
  serverId: string | undefined;
  /** Height of the last block delivered (newBlocks) or of the last operation delivered. */
  lastHeight: number | undefined;
  /** Ophashes delivered at `lastHeight` (operations), so a resume from there skips them. */
  seenAtLast: Set<string>;
  deliver(result: unknown): void;
  /** Ends it with an error: the iterator throws it, `ended` rejects with it. */
  fail(error: Error): void;
  /** Ends it without one (unsubscribe, close). */
  finish(): void;
  ended: boolean;
}

const OPEN = 1;

export class PushConnection {
  private socket: WebSocketLike | undefined;
  private connected: Promise<void> | undefined;
  private readonly calls = new Map<number, PendingCall>();
  private readonly subscriptions = new Set<SubscriptionState>();
  private readonly byServerId = new Map<string, SubscriptionState>();
  private nextId = 1;
  private delay: number;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly options: PushConnectionOptions) {
    this.delay = options.reconnectDelayMs;
  }

  subscribe<E extends PushEvent>(
    event: E,
    params: SubscribeParams,
    onResult?: (result: PushResults[E]) => void,
  ): Subscription<E> {
    const queue: PushResults[E][] = [];
    const waiting: ((result: IteratorResult<PushResults[E]>) => void)[] = [];
    let failure: Error | undefined;
    let settle!: { resolve: () => void; reject: (error: Error) => void };
    const ended = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    ended.catch(() => undefined); // reported to whoever awaits it, and through the iterator
    const state: SubscriptionState = {
      event,
      params: { ...params },
      serverId: undefined,
      lastHeight: undefined,
      seenAtLast: new Set(),
      ended: false,
      deliver: (result) => {
        const typed = result as PushResults[E];
        if (onResult !== undefined) onResult(typed);
        else if (waiting.length > 0) waiting.shift()!({ value: typed, done: false });
        else queue.push(typed);
      },
      fail: (error) => {
        failure = error;
        state.ended = true;
        for (const wake of waiting.splice(0)) wake({ value: undefined, done: true });
        settle.reject(error);
      },
      finish: () => {
        state.ended = true;
        for (const wake of waiting.splice(0)) wake({ value: undefined, done: true });
        settle.resolve();
      },
    };
    this.subscriptions.add(state);
    const ready = this.open(state);
    ready.catch((error: unknown) => {
      // A refusal of the node (bad params) ends it; a network failure is `dropped`'s to handle.
      if (error instanceof RpcError) this.end(state, error);
    }); // reported through `ready`, `ended` and the iterator
    const unsubscribe = async () => {
      if (state.ended) return;
      this.subscriptions.delete(state);
      state.finish();
      const id = state.serverId;
      if (id !== undefined) {
        this.byServerId.delete(id);
        if (this.socket?.readyState === OPEN) {
          await this.call('unsubscribe', { subscription: id }).catch(() => undefined);
        }
      }
      // The socket goes with the last subscription; the client stays usable: a later subscribe
      // opens a new one.
      if (this.subscriptions.size === 0) this.releaseSocket();
    };
    return {
      ready,
      ended,
      unsubscribe,
      [Symbol.asyncIterator]() {
        return {
          next() {
            if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
            if (failure !== undefined) return Promise.reject(failure);
            if (state.ended) return Promise.resolve({ value: undefined, done: true });
            return new Promise((resolve) => waiting.push(resolve));
          },
          async return() {
            await unsubscribe();
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  /** Closes the socket and ends every subscription. */
  close(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    for (const state of this.subscriptions) state.finish();
    this.subscriptions.clear();
    this.releaseSocket();
  }

  /**
   * Closes the socket on purpose (no subscription left, or the client closed): the calls in flight
   * on it fail, and its close event is not taken for a drop to reconnect from.
   */
  private releaseSocket(): void {
    const socket = this.socket;
    this.socket = undefined;
    this.connected = undefined;
    const error = new TransportError('NETWORK', 'the WebSocket to the node was closed');
    for (const call of this.calls.values()) call.reject(error);
    this.calls.clear();
    this.byServerId.clear();
    socket?.close(1000);
  }

  /** Subscribes on the current socket (connecting first), from where the subscription was. */
  private async open(state: SubscriptionState): Promise<string> {
    await this.connect();
    // Without fromBlock, history starts at the head of now: a later resume then has a height.
    if (state.lastHeight === undefined && state.params.fromBlock === undefined) {
      if (hasHistory(state.event)) {
        state.params.fromBlock = (await this.call('getBlockCount', {})) as number;
      }
    }
    const params = { event: state.event, ...state.params, ...this.resumeFrom(state) };
    const id = (await this.call('subscribe', params, (result) => {
      // Registered as the reply is read: its first notifications may be in the same read.
      state.serverId = String(result);
      this.byServerId.set(state.serverId, state);
    })) as string;
    if (state.ended) {
      this.byServerId.delete(id);
      await this.call('unsubscribe', { subscription: id }).catch(() => undefined);
    }
    return id;
  }

  private resumeFrom(state: SubscriptionState): SubscribeParams {
    if (state.lastHeight === undefined || !hasHistory(state.event)) return {};
    // Blocks: the next one. Operations: the block of the last one again, its delivered ones skipped.
    return { fromBlock: state.event === 'newBlocks' ? state.lastHeight + 1 : state.lastHeight };
  }

  private connect(): Promise<void> {
    if (this.closed) return Promise.reject(new TransportError('NETWORK', 'the client was closed'));
    if (this.connected !== undefined) return this.connected;
    let socket: WebSocketLike;
    try {
      const Impl = this.options.WebSocket ?? webSocketOfGlobal();
      socket = new Impl(this.options.url, undefined, { headers: { ...this.options.headers } });
    } catch (error) {
      return Promise.reject(error);
    }
    // What the socket's error event said (`ws` gives a message: ECONNREFUSED, an HTTP refusal).
    let cause = '';
    let opened = false;
    this.connected = new Promise<void>((resolve, reject) => {
      this.socket = socket;
      socket.onopen = () => {
        opened = true;
        this.delay = this.options.reconnectDelayMs;
        resolve();
      };
      socket.onmessage = (event) => this.receive(String(event.data));
      socket.onerror = (event) => {
        // onclose follows and says what to do
        const message = (event as { message?: unknown } | null)?.message;
        if (typeof message === 'string' && message !== '') cause = `: ${message}`;
      };
      socket.onclose = (event) => {
        // Never open: from a page, the node may refuse its origin (a browser says only 1006).
        const hint = opened ? '' : crossOriginHint(this.options.url);
        reject(new TransportError('NETWORK', `WebSocket closed (${event.code})${cause}${hint}`));
        // A socket let go (releaseSocket) is no drop: a newer one may be in use already.
        if (this.socket !== socket) return;
        this.connected = undefined;
        this.socket = undefined;
        this.dropped(`${event.code}${cause}`);
      };
    });
    return this.connected;
  }

  /**
   * The socket went: calls in flight fail, subscriptions come back on a new socket (or, with
   * `reconnect: false`, end with the error).
   */
  private dropped(why: string): void {
    const error = new TransportError('NETWORK', `the WebSocket to the node closed (${why})`);
    for (const call of this.calls.values()) call.reject(error);
    this.calls.clear();
    this.byServerId.clear();
    if (this.closed || this.subscriptions.size === 0) return;
    if (!this.options.reconnect) {
      for (const state of [...this.subscriptions]) this.end(state, error);
      return;
    }
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.resubscribe(), this.delay);
    this.delay = Math.min(this.delay * 2, this.options.maxReconnectDelayMs);
  }

  private resubscribe(): void {
    for (const state of this.subscriptions) {
      state.serverId = undefined;
      this.open(state).catch((error: unknown) => {
        // A refusal of the node (bad params) ends it; a network failure is retried by `dropped`.
        if (error instanceof RpcError) this.end(state, error);
      });
    }
  }

  /** Ends one subscription with an error; the socket closes once it carries no other. */
  private end(state: SubscriptionState, error: Error): void {
    if (state.ended) return;
    this.subscriptions.delete(state);
    if (state.serverId !== undefined) this.byServerId.delete(state.serverId);
    state.fail(error);
    if (this.subscriptions.size === 0) this.releaseSocket();
  }

  private call(
    method: string,
    params: unknown,
    onReply?: (result: unknown) => void,
  ): Promise<unknown> {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== OPEN) {
      return Promise.reject(new TransportError('NETWORK', 'the WebSocket to the node is not open'));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(
        id,
        onReply === undefined ? { resolve, reject } : { onReply, resolve, reject },
      );
      socket.send(JSON.stringify({ jsonrpc: '2.0', method, params, id }));
    });
  }

  private receive(text: string): void {
    let message: {
      id?: unknown;
      method?: unknown;
      params?: { subscription?: unknown; result?: unknown };
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.method === 'subscription') {
      const state = this.byServerId.get(String(message.params?.subscription));
      if (state !== undefined && !state.ended) this.notify(state, message.params?.result);
      return;
    }
    const call = this.calls.get(Number(message.id));
    if (call === undefined) return;
    this.calls.delete(Number(message.id));
    if (message.error !== undefined) {
      call.reject(new RpcError(message.error.code, message.error.message, message.error.data));
    } else {
      call.onReply?.(message.result);
      call.resolve(message.result);
    }
  }

  /** Delivers a notification unless a resume already delivered it; remembers where it is. */
  private notify(state: SubscriptionState, result: unknown): void {
    if (!hasHistory(state.event)) {
      state.deliver(result);
      return;
    }
    if (state.event === 'newBlocks') {
      const height = (result as BlockInfo).block;
      state.lastHeight = height;
      state.deliver(result);
      return;
    }
    const operation = result as { block: number; ophash: string; removed?: true };
    if (operation.removed === true) forgetRemoved(state, operation);
    else {
      if (operation.block === state.lastHeight && state.seenAtLast.has(operation.ophash)) return;
      if (operation.block !== state.lastHeight) state.seenAtLast = new Set();
      state.lastHeight = operation.block;
      state.seenAtLast.add(operation.ophash);
    }
    state.deliver(result);
  }
}

/**
 * An operation taken off the chain is no longer delivered: mined again (at the same height, or
 * lower), it must reach the client again, and a resume starts where the node rewound to. The node
 * removes every operation of the blocks above its fork, newest first, so once it removes one at a
 * height, none delivered at that height or above is left.
 */
function forgetRemoved(state: SubscriptionState, removed: { block: number; ophash: string }): void {
  if (state.lastHeight === undefined || removed.block > state.lastHeight) return;
  if (removed.block < state.lastHeight) state.seenAtLast = new Set();
  else state.seenAtLast.delete(removed.ophash);
  state.lastHeight = removed.block;
}

function webSocketOfGlobal(): WebSocketConstructor {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global === undefined) {
    throw new TransportError(
      'NO_WEBSOCKET',
      'no global WebSocket here (Node 20): pass the WebSocket class of the `ws` package as createClient({ url, WebSocket })',
    );
  }
  return global;
}
