export {
  formatPeerAddress,
  isValidIp,
  maskIp,
  type PeerAddress,
  parsePeerAddress,
  parsePeerList,
} from './address';
export type { BlacklistEntry } from './blacklist';
export { locatorHeights, type Reorganization, type SyncProgress } from './block-sync';
export { blacklistReason, NetworkError } from './errors';
export { LIMITS } from './limits';
export {
  BLOCKS_PROTOCOL,
  HELLO_PROTOCOL,
  MEMPOOL_PROTOCOL,
  PEERS_PROTOCOL,
  RATE_LIMITS,
  type RateLimitedKind,
  type RateLimits,
  type RequestProtocol,
  STREAM_LIMITS,
} from './message-table';
export { BAN_SCORE, DECAY_PER_MINUTE, type Offence, PENALTY } from './misbehaviour';
export type { ConnectionInfo, NetStats, P2PNode } from './p2p-api';
export { createP2PNode } from './p2p-node';
export {
  DEFAULT_P2P_OPTIONS,
  DEFAULT_P2P_PORT,
  type Libp2pMetricsFactory,
  type P2PLogger,
  type P2PNodeOptions,
} from './p2p-options';
export type { KnownServer } from './peer-book';
export type { MessageRate } from './rate-limiter';
export type { Direction, IpTraffic, KindTraffic, MessageKind } from './traffic';
