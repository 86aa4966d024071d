export {
  formatPeerAddress,
  isValidIp,
  maskIp,
  type PeerAddress,
  parsePeerAddress,
  parsePeerList,
} from './address';
export type { BlacklistEntry } from './blacklist';
export { BLOCKS_PROTOCOL, locatorHeights, type SyncProgress } from './block-sync';
export { blacklistReason, NetworkError } from './errors';
export { LIMITS } from './limits';
export { BAN_SCORE, PENALTY } from './misbehaviour';
export {
  type ConnectionInfo,
  createP2PNode,
  DEFAULT_P2P_OPTIONS,
  DEFAULT_P2P_PORT,
  HELLO_PROTOCOL,
  MEMPOOL_PROTOCOL,
  type NetStats,
  type P2PLogger,
  type P2PNode,
  type P2PNodeOptions,
  PEERS_PROTOCOL,
} from './p2p-node';
export type { KnownServer } from './peer-book';
export type { Direction, IpTraffic, KindTraffic, MessageKind } from './traffic';
