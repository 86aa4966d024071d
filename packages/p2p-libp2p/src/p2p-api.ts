import type { ConnectionEntry, NetStats } from '@chain/spec';
import type { BlacklistEntry } from './discipline/blacklist';
import type { KnownServer } from './peers/peer-book';
import type { IpTraffic } from './stats/traffic';
import type { Reorganization, SyncProgress } from './sync/sync-types';

/** netStats: the wire contract's object (@chain/spec). */
export type { NetStats };

/**
 * getConnection's entry (@chain/spec), with the IP unmasked (the RPC layer masks it) and the peer id.
 * `port` is the peer's listening port when known from its hello, else the connection's remote port;
 * `timediff` is the peer's clock minus this node's, in seconds, at its hello.
 */
export interface ConnectionInfo extends ConnectionEntry {
  peerId: string;
}

export interface P2PNode {
  /** Loads the peer key, blacklist and peer book, and starts networking. */
  start(): Promise<void>;
  /** Networking off (listener and connections closed); start() turns it on again. */
  stop(): Promise<void>;
  /** Idempotent; stops networking and saves the peer book and blacklist. */
  close(): Promise<void>;
  readonly running: boolean;
  /** The libp2p peer id (after start). */
  readonly peerId: string | undefined;
  /** The TCP port listened on (the configured one while stopped). */
  readonly listenPort: number;
  /** Adds `ip:port;...` to the known servers and dials them; the count accepted. */
  addPeers(list: string): number;
  netStats(): NetStats;
  knownServers(): KnownServer[];
  connections(): ConnectionInfo[];
  addBlacklist(ip: string, why?: string): BlacklistEntry;
  blacklist(): BlacklistEntry[];
  clearBlacklist(): number;
  /** Traffic of one IP, or of all when `ip` is undefined. */
  ipStats(ip?: string): IpTraffic[];
  syncProgress(): SyncProgress;
  /** The last reorganisation this node adopted since it started (none: undefined). */
  lastReorganization(): Reorganization | undefined;
  /** Called after each reorganisation this node adopts (onto a peer's heavier branch). */
  onReorganized(listener: (reorganization: Reorganization) => void): () => void;
  /** True when no connected peer has a better tip, nothing is syncing and start-up is over. */
  isSynced(): boolean;
  /** Turns peer exchange on (nodeSearch): ask peers for the servers they know, and dial them. */
  enableDiscovery(): void;
  readonly discovery: boolean;
}
