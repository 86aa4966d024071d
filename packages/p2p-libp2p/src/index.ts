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
export {
  LIMITS,
  RATE_LIMITS,
  type RateLimitedKind,
  type RateLimits,
  type RequestProtocol,
  STREAM_LIMITS,
} from './limits';
export { BAN_SCORE, DECAY_PER_MINUTE, type Offence, PENALTY } from './misbehaviour';
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
export type { MessageRate } from './rate-limiter';
export type { Direction, IpTraffic, KindTraffic, MessageKind } from './traffic';
