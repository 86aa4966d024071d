/**
 * The WebSocket front of the RPC port: an upgrade on the HTTP server is checked with the same
 * access rules as an HTTP request (Host, Origin as for CORS, credentials) and the connection limits,
 * then every message is a JSON-RPC body for the same dispatcher, answered on the socket. Calls on a
 * WebSocket carry a PushChannel in their context, through which `subscribe` handlers send
 * notifications. A client that lets more than `wsMaxBufferedBytes` queue is cut off (close 1008):
 * nothing it does not read can grow the node's memory past that.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { PUSH_NOTIFICATION_METHOD } from '@chain/spec';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AccessRules, Refusal } from './access-rules.js';
import { ORIGIN_NOT_ALLOWED, refusalBody } from './access-rules.js';
import type { Dispatcher } from './dispatcher.js';
import { RpcError, RpcErrorCode } from './errors.js';
import { isThenable } from './invoke-handler.js';
import type {
  CallContext,
  Logger,
  PushChannel,
  PushSubscription,
  RpcServerOptions,
} from './options.js';

/** Close code of a client cut off for not reading (RFC 6455: policy violation). */
export const SLOW_CONSUMER_CLOSE_CODE = 1008;
/** After the close frame of a cut-off client, the socket is destroyed this much later at most. */
const CUT_OFF_GRACE_MS = 1000;
/** How often a history replay looks whether the client has read its backlog. */
const DRAIN_POLL_MS = 10;

type WsConfig = Pick<
  RpcServerOptions,
  | 'wsMaxConnections'
  | 'wsMaxConnectionsPerIp'
  | 'wsMaxSubscriptions'
  | 'wsMaxMessageBytes'
  | 'wsMaxBufferedBytes'
  | 'isLoopbackAddress'
>;

interface WsFrontOptions {
  config: WsConfig;
  access: AccessRules;
  dispatcher: Dispatcher;
  log?: Logger;
}

interface WsFront {
  /** The `upgrade` listener of the node:http server. */
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open WebSocket connections. */
  connections(): number;
  /** Closes every connection (server shutdown). */
  close(): void;
}

/** The push channel of a call made on a WebSocket; WEBSOCKET_REQUIRED for a call over HTTP. */
export function requirePush(context: CallContext, method: string): PushChannel {
  if (context.push !== undefined) return context.push;
  throw new RpcError(
    RpcErrorCode.WEBSOCKET_REQUIRED,
    'WEBSOCKET_REQUIRED',
    `${method} works on a WebSocket connection only (ws://host:port/ on the RPC port)`,
  );
}

const NOT_FOUND: Refusal = {
  status: 404,
  code: RpcErrorCode.INVALID_REQUEST,
  reason: 'INVALID_REQUEST',
  message: 'WebSocket upgrades are served at / only',
};

function tooMany(what: string, limit: number): Refusal {
  return {
    status: 503,
    code: RpcErrorCode.TOO_MANY_CONNECTIONS,
    reason: 'TOO_MANY_CONNECTIONS',
    message: `too many WebSocket connections ${what} (limit ${limit})`,
    headers: { 'retry-after': '1' },
  };
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** Writes an HTTP refusal on the socket of a refused upgrade and closes it. */
function refuseUpgrade(socket: Duplex, refusal: Refusal): void {
  if (socket.destroyed) return;
  const body = refusalBody(refusal);
  const headers = [
    `HTTP/1.1 ${refusal.status} ${STATUS_TEXT[refusal.status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(refusal.headers ?? {}).map(([name, value]) => `${name}: ${String(value)}`),
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

function pathOf(target: string | undefined): string {
  if (target === undefined) return '/';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

const NOTIFICATION_HEAD = `{"jsonrpc":"2.0","method":"${PUSH_NOTIFICATION_METHOD}","params":{"subscription":`;

/**
 * The JSON of a result, kept for the last object: an event goes to every subscriber as the same
 * object, one after the other, and is serialised once.
 */
let lastResult: unknown;
let lastJson = '';
function resultJson(result: unknown): string {
  if (result !== lastResult || typeof result !== 'object' || result === null) {
    lastJson = JSON.stringify(result);
    lastResult = result;
  }
  return lastJson;
}

/** One open subscription as the connection keeps it. */
interface OpenSubscription extends PushSubscription {
  /** Notifications sent before the reply that opened it went out. */
  held: string[] | undefined;
  end(): void;
}

/** One WebSocket connection: its subscriptions, its sends and its limit on queued data. */
class PushConnection {
  private readonly subscriptions = new Map<string, OpenSubscription>();
  private nextId = 1;
  private cut = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly remoteAddress: string,
    private readonly config: WsConfig,
    private readonly log: Logger | undefined,
  ) {}

  /** More than half the queue limit is waiting to be sent. */
  get backlogged(): boolean {
    return this.ws.bufferedAmount > this.config.wsMaxBufferedBytes / 2;
  }

  get open(): boolean {
    return !this.cut && this.ws.readyState === this.ws.OPEN;
  }

  /** Sends one text frame, then cuts the client off if it let too much queue. */
  sendText(text: string): void {
    if (!this.open) return;
    this.ws.send(text);
    if (this.ws.bufferedAmount > this.config.wsMaxBufferedBytes) this.cutOff();
  }

  /** The channel handed to the calls of one message; subscriptions it opens are held until released. */
  channelFor(opened: OpenSubscription[]): PushChannel {
    return {
      open: (stop) => {
        const subscription = this.openSubscription(stop);
        opened.push(subscription);
        return subscription;
      },
      close: (id) => {
        const subscription = this.subscriptions.get(id);
        if (subscription === undefined) return false;
        subscription.end();
        return true;
      },
    };
  }

  /** The reply of the message that opened these is on its way: their notifications may follow. */
  release(opened: readonly OpenSubscription[]): void {
    for (const subscription of opened) {
      const held = subscription.held ?? [];
      subscription.held = undefined;
      for (const text of held) this.sendText(text);
    }
  }

  /** Ends every subscription (the connection closed). */
  endAll(): void {
    for (const subscription of [...this.subscriptions.values()]) subscription.end();
  }

  private openSubscription(stop: () => void): OpenSubscription {
    if (this.subscriptions.size >= this.config.wsMaxSubscriptions) {
      throw new RpcError(
        RpcErrorCode.SUBSCRIPTION_LIMIT,
        'SUBSCRIPTION_LIMIT',
        `at most ${this.config.wsMaxSubscriptions} subscriptions per connection`,
      );
    }
    const id = `0x${(this.nextId++).toString(16)}`;
    const connection = this;
    let active = true;
    const subscription: OpenSubscription = {
      id,
      held: [],
      get active() {
        return active && connection.open;
      },
      send(result) {
        if (!subscription.active) return;
        const text = `${NOTIFICATION_HEAD}${JSON.stringify(id)},"result":${resultJson(result)}}}`;
        if (subscription.held !== undefined) subscription.held.push(text);
        else connection.sendText(text);
      },
      async drained() {
        while (subscription.active && connection.backlogged) {
          await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
        }
      },
      end() {
        if (!active) return;
        active = false;
        connection.subscriptions.delete(id);
        try {
          stop();
        } catch (err) {
          connection.log?.error({ err }, 'ending a subscription failed');
        }
      },
    };
    this.subscriptions.set(id, subscription);
    return subscription;
  }

  private cutOff(): void {
    if (this.cut) return;
    this.cut = true;
    const buffered = this.ws.bufferedAmount;
    this.log?.warn(
      {
        remoteAddress: this.remoteAddress,
        bufferedBytes: buffered,
        limit: this.config.wsMaxBufferedBytes,
        code: SLOW_CONSUMER_CLOSE_CODE,
      },
      'WebSocket client too slow (data queued over the limit): disconnected',
    );
    this.endAll();
    this.ws.close(SLOW_CONSUMER_CLOSE_CODE, 'too slow: queued data over the limit');
    // The close frame waits behind what the client does not read: the socket goes regardless.
    setTimeout(() => this.ws.terminate(), CUT_OFF_GRACE_MS).unref();
  }
}

/** Whether `origin` is that of the Host a request was sent to: a page this node served. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  const own = host.toLowerCase();
  return origin === `http://${own}` || origin === `https://${own}`;
}

export function createWsFront(options: WsFrontOptions): WsFront {
  const { config, access, dispatcher, log } = options;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: config.wsMaxMessageBytes,
    // Compression would keep a zlib context per connection: memory for little gain on JSON-RPC.
    perMessageDeflate: false,
  });
  const perIp = new Map<string, number>();
  let open = 0;

  function upgradeRefusal(req: IncomingMessage, remoteAddress: string): Refusal | undefined {
    const badHost = access.hostRefusal(req.headers.host);
    if (badHost !== undefined) return badHost;
    // Browsers always send Origin on a WebSocket upgrade: a page of the node itself (the explorer,
    // whose origin is the allowed Host it was sent to) may connect, others as the CORS rule says.
    // Other clients send none and are judged like any HTTP client.
    const origin = req.headers.origin;
    if (
      origin !== undefined &&
      !isOwnOrigin(origin, req.headers.host) &&
      !access.originAllowed(origin)
    ) {
      return ORIGIN_NOT_ALLOWED;
    }
    if (pathOf(req.url) !== '/') return NOT_FOUND;
    if (open >= config.wsMaxConnections) return tooMany('in total', config.wsMaxConnections);
    if ((perIp.get(remoteAddress) ?? 0) >= config.wsMaxConnectionsPerIp) {
      return tooMany('from this address', config.wsMaxConnectionsPerIp);
    }
    return undefined;
  }

  function serve(ws: WebSocket, remoteAddress: string): void {
    open++;
    perIp.set(remoteAddress, (perIp.get(remoteAddress) ?? 0) + 1);
    const connection = new PushConnection(ws, remoteAddress, config, log);
    const loopback = config.isLoopbackAddress(remoteAddress);

    ws.on('message', (data, isBinary) => {
      if (!connection.open) return;
      const text = isBinary
        ? Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data as ArrayBuffer)])
        : data;
      const opened: OpenSubscription[] = [];
      const context: CallContext = {
        remoteAddress,
        loopback,
        push: connection.channelFor(opened),
      };
      const answer = (reply: string | undefined) => {
        if (reply !== undefined) connection.sendText(reply);
        connection.release(opened);
      };
      try {
        const reply = dispatcher.handle(text.toString(), context);
        if (isThenable(reply)) reply.then(answer, (err: unknown) => fail(err, opened));
        else answer(reply);
      } catch (err) {
        fail(err, opened);
      }
    });
    ws.on('error', (err) => log?.debug({ err, remoteAddress }, 'WebSocket error'));
    ws.on('close', () => {
      connection.endAll();
      open--;
      const left = (perIp.get(remoteAddress) ?? 1) - 1;
      if (left === 0) perIp.delete(remoteAddress);
      else perIp.set(remoteAddress, left);
    });

    function fail(err: unknown, opened: OpenSubscription[]): void {
      log?.error({ err }, 'WebSocket call failed');
      for (const subscription of opened) subscription.end();
      connection.sendText(
        refusalBody({
          status: 500,
          code: RpcErrorCode.INTERNAL_ERROR,
          reason: 'INTERNAL_ERROR',
          message: 'Internal error',
        }),
      );
    }
  }

  return {
    onUpgrade(req, socket, head) {
      // A client gone mid-upgrade must not take the node down with an unhandled 'error'.
      socket.on('error', () => socket.destroy());
      const remoteAddress = req.socket.remoteAddress ?? '';
      const refusal = upgradeRefusal(req, remoteAddress);
      if (refusal !== undefined) {
        refuseUpgrade(socket, refusal);
        return;
      }
      const badCredentials = access.credentialsRefusal(req.headers.authorization);
      if (badCredentials !== undefined) {
        // Answered late, as over HTTP: slows guessing.
        const timer = setTimeout(
          () => refuseUpgrade(socket, badCredentials),
          badCredentials.delayMs ?? 0,
        );
        socket.once('close', () => clearTimeout(timer));
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, remoteAddress));
    },
    connections() {
      return open;
    },
    close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
