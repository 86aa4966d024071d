export * from '@chain/spec';
export type { DurationBuckets, MethodCounter } from './call-stats.js';
export {
  CONFIG_ERROR_CODE,
  InvalidParamsError,
  RpcConfigError,
  RpcError,
  RpcErrorCode,
  toJsonRpcError,
} from './errors.js';
export { quoteInexactNumbers } from './exact-json.js';
export { OPENRPC_VERSION, openRpcDocument, paramSchema } from './openrpc.js';
export {
  type BuiltInMethod,
  type CallContext,
  type CreateRpcServerOptions,
  DEFAULT_RPC_SERVER_OPTIONS,
  type GetRoute,
  type GroupHandlers,
  type Handler,
  type Handlers,
  isLoopbackAddress,
  type Logger,
  type PushChannel,
  type PushSubscription,
  type RpcAuth,
  type RpcServer,
  type RpcServerAddress,
  type RpcServerOptions,
  type ServedHandlers,
} from './options.js';
export { createRpcServer } from './server.js';
export { requirePush, SLOW_CONSUMER_CLOSE_CODE } from './ws-front.js';
