export type { BlacklistEntry } from './discipline/blacklist';
export { BAN_SCORE, DECAY_PER_MINUTE, type Offence, PENALTY } from './discipline/misbehaviour';
export type { MessageRate } from './discipline/rate-limiter';
export { blacklistReason, NetworkError } from './errors';
export type { ConnectionInfo, NetStats, P2PNode } from './p2p-api';
export { createP2PNode } from './p2p-node';
export {
  DEFAULT_P2P_OPTIONS,
  DEFAULT_P2P_PORT,
  type Libp2pMetricsFactory,
  type P2PLogger,
  type P2PNodeOptions,
} from './p2p-options';
export {
  formatPeerAddress,
  isValidIp,
  maskIp,
  type PeerAddress,
  parsePeerAddress,
  parsePeerList,
} from './peers/address';
export type { KnownServer } from './peers/peer-book';
export type { Direction, IpTraffic, KindTraffic, MessageKind } from './stats/traffic';
export { locatorHeights } from './sync/blocks-client';
export type { Reorganization, SyncProgress } from './sync/sync-types';
export { LIMITS } from './wire/limits';
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
} from './wire/message-table';
