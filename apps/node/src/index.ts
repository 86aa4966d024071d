export { createNode, isLoopbackHost, loadGenesis, type ChainNode, type DevWallet } from './node';
export {
  DEFAULT_NODE_OPTIONS,
  DEFAULT_P2P_PORT,
  DEFAULT_RPC_PORT,
  defaultDatadir,
  resolveNodeOptions,
  type LogLevel,
  type NodeOptions,
} from './options';
export { createLogger } from './logger';
export { APP_NAME, APP_VERSION, NET_PROTOCOL } from './version';
