export {
  createDevnet,
  type DevnetAccount,
  type DevnetManifest,
  type DevnetNodeEntry,
  type DevnetPlan,
  readDevnet,
} from './commands/devnet-setup';
export {
  type KeyStoreLookup,
  keyStoreOperationsOf,
  keyStorePage,
} from './keystore-operations/keystore-operations';
export {
  createLogger,
  createNodeLogger,
  LOG_MODULES,
  type LogModule,
  type LogOptions,
  moduleLogger,
  parseLogLevels,
} from './logger';
export { type ChainNode, createNode, type DevWallet, loadGenesis } from './node';
export {
  DEFAULT_METRICS_PORT,
  DEFAULT_NODE_OPTIONS,
  DEFAULT_P2P_PORT,
  DEFAULT_RPC_PORT,
  defaultDatadir,
  type LogLevel,
  type NodeOptions,
  resolveNodeOptions,
} from './options';
export { createPushHub, type PushHub } from './push/push-hub';
export { createNodeRegistry } from './registry';
export { APP_NAME, APP_VERSION, NET_PROTOCOL } from './version';
