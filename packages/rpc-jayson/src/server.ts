/**
 * The RPC server: the access rules, the JSON-RPC dispatcher and the HTTP front that carries calls
 * to it, put together on one node:http server (listening, timeouts, the cookie file, closing).
 * Another transport (a WebSocket upgrade on the same port) or GET route (a probe) plugs in beside
 * the HTTP front here, calling the same access rules and `dispatcher.handle`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { withDefaults } from '@chain/spec';
import { deleteCookieFile, writeCookieFile } from './access.js';
import { createAccessRules } from './access-rules.js';
import { answerClientError } from './client-errors.js';
import { createDispatcher } from './dispatcher.js';
import { RpcConfigError } from './errors.js';
import { createHttpFront } from './http-front.js';
import { openRpcDocument } from './openrpc.js';
import {
  type CreateRpcServerOptions,
  DEFAULT_RPC_SERVER_OPTIONS,
  type Handlers,
  type RpcServer,
  type RpcServerAddress,
  type RpcServerOptions,
} from './options.js';
import { createWsFront, requirePush } from './ws-front.js';

export function createRpcServer(options: CreateRpcServerOptions): RpcServer {
  const { handlers, log, ...rest } = options;
  const config: RpcServerOptions = withDefaults(DEFAULT_RPC_SERVER_OPTIONS, rest);
  const boundLoopback = config.isLoopbackAddress(config.host);

  let startedAt: number | undefined;
  let httpServer: Server | undefined;
  let address: RpcServerAddress | undefined;
  let closing: Promise<void> | undefined;

  // The server's own methods, unless the caller brings its own.
  let discovery: ReturnType<typeof openRpcDocument> | undefined;
  const builtIns: Partial<Handlers> = {
    rpcCallStats: () => server.callStats(),
    nodeUptime: () => server.uptimeSeconds(),
    unsubscribe: ({ subscription }, context) =>
      requirePush(context, 'unsubscribe').close(subscription),
    'rpc.discover': () => {
      discovery ??= openRpcDocument(config.apiVersion);
      return discovery;
    },
  };
  const access = createAccessRules(config);
  const dispatcher = createDispatcher({
    handlers: withDefaults(builtIns, handlers),
    maxBatch: config.maxBatch,
    keysAllowed: access.keysAllowed,
    resultCacheEntries: config.resultCacheEntries,
    stateVersion: options.stateVersion,
    ...(config.durationBucketsSeconds
      ? { durationBucketsSeconds: config.durationBucketsSeconds }
      : {}),
    log,
  });
  const onRequest = createHttpFront({ config, access, dispatcher, log });
  const wsFront = createWsFront({ config, access, dispatcher, log });

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
    access.requireCredentials(auth);
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
    created.on('upgrade', wsFront.onUpgrade);
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
    wsFront.close();
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
      return dispatcher.callStats();
    },
    methodCounters() {
      return dispatcher.methodCounters();
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
