import type { Chain } from '@chain/ledger';
import { withDefaults } from '@chain/spec';
import type { Libp2pInit } from 'libp2p';
import { RATE_LIMITS, type RateLimits } from './wire/message-table';

export const DEFAULT_P2P_PORT = 9714;

/** pino-compatible. */
export interface P2PLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** A libp2p metrics component, e.g. @libp2p/prometheus-metrics' `prometheusMetrics()`. */
export type Libp2pMetricsFactory = NonNullable<Libp2pInit['metrics']>;

export interface P2PNodeOptions {
  chain: Chain;
  /** Where the peer key, known peers and blacklist are kept (`<datadir>/p2p`). */
  dir: string;
  /** Address to listen on (and to dial from, when it is a specific address). */
  host?: string;
  /**
   * Accept inbound connections. False: every inbound connection is refused before its handshake
   * (and logged once per IP), while this node still dials the peers it is told of: a dev node that
   * joins nobody unless told to (docs/operations.md, "Dev nodes stay apart").
   */
  inbound?: boolean;
  /** TCP port to listen on; 0 = any free port. */
  port?: number;
  /** Port assumed for peer addresses given without one. */
  defaultPeerPort?: number;
  appVersion: string;
  netProtocol: { ver: number; ver_a: number };
  /** Peers to dial at start: `ip:port` strings. */
  peers?: readonly string[];
  log?: P2PLogger;
  /** Open connections, both ways; an inbound one beyond is refused before its handshake. */
  maxConnections?: number;
  /** Inbound connections in their handshake at once, all IPs together (libp2p's pending cap). */
  maxPendingInbound?: number;
  /**
   * Inbound connections from one IP at once, in their handshake or open (beyond: refused), so one
   * host cannot take the pending or the open slots of everyone else.
   */
  maxInboundPerIp?: number;
  /** New inbound connections accepted from one IP per second (libp2p inboundConnectionThreshold). */
  inboundConnectionsPerSecond?: number;
  /**
   * An inbound connection that has not completed its handshake (multistream-select, noise, then the
   * yamux selection) within this is closed, and scored `failedHandshake` (libp2p
   * `inboundUpgradeTimeout`, whose own default is 10 s). Bytes that leave the handshake waiting for
   * more (an unfinished length prefix: about 1 in 256 random payloads starts with 8 bytes that have
   * their top bit set; or a length that promises more than is sent) hold one of the
   * `maxPendingInbound` and `maxInboundPerIp` places this long and no longer. A real handshake
   * takes about four round trips: the default leaves room for links of a second's round trip.
   */
  handshakeTimeoutMs?: number;
  /** Per-IP message rates, by kind; the ones not given are RATE_LIMITS'. */
  rateLimits?: Partial<RateLimits>;
  /**
   * How often the dialling side exchanges hellos again: a safety net for a tip not learnt from
   * gossip (a peer's block gossip gives its tip at every block, a block that cannot be placed asks
   * at once). Each exchange is a stream opened and closed (about 8 frames each way), the largest
   * part of what an idle connection costs: 6 idle nodes on loopback spent 12.5 ms of CPU a second
   * each at 5 s (a node alone 3.7), 7 at 15 s, with libp2p's ping every 30 s (docs/performance.md,
   * issue 43 session 19).
   */
  statusIntervalMs?: number;
  /** How often known, unconnected servers are considered for dialling. */
  dialIntervalMs?: number;
  /**
   * How often libp2p's connection monitor pings each connection, from both ends (a failed ping
   * closes it). The dialling side's hello every statusIntervalMs already proves a connection
   * alive both ways; the ping is what catches a dialler gone silent, and a 30-node network on
   * one host pays for each one (libp2p's own default is 10 s).
   */
  pingIntervalMs?: number;
  /** An inbound connection that sends no hello within this is closed. */
  helloTimeoutMs?: number;
  /** How long an automatic (misbehaviour) blacklist entry lasts. */
  autoBlacklistMs?: number;
  /** How long an addBlacklist entry lasts. */
  manualBlacklistMs?: number;
  /**
   * After start, with peers to dial, the node does not count as synced (so it does not produce)
   * until a first hello or this long has passed.
   */
  startupGraceMs?: number;
  /** Peer exchange interval once discovery is on (nodeSearch). */
  discoveryIntervalMs?: number;
  /**
   * Discovery on from the start: the node asks each peer it greets for the servers it knows (peer
   * exchange) and keeps `outboundPeers` connections it dialled, to servers of different networks
   * first; servers that keep failing are forgotten. Off: only the known servers are dialled, all
   * of them, until nodeSearch turns it on. The node turns it on for every network but dev
   * (docs/decisions.md).
   */
  discovery?: boolean;
  /** With discovery on: connections this node dials and keeps (inbound ones come on top). */
  outboundPeers?: number;
  /**
   * With discovery on: failed attempts in a row after which a server is forgotten (one given by
   * `peers` or addNode never is).
   */
  forgetAfterAttempts?: number;
  /**
   * Pending operations are gossiped again when the chain has not moved for this long (so one that
   * reached nobody, e.g. submitted while networking was off, is not stuck on this node).
   */
  rebroadcastIntervalMs?: number;
  /** Pause before asking a peer for blocks again after it failed. */
  syncRetryMs?: number;
  /**
   * A reorganisation that drops more blocks than this is a deep one: logged at WARN (a shallower
   * one at INFO); every one adopted is reported (P2PNode.onReorganized, lastReorganization).
   */
  reorgWarnDepth?: number;
  /**
   * `snap`: a node at block 0 whose peers are `snapDistance` blocks or more ahead joins from a
   * snapshot of their state (snap-sync.ts), then syncs the blocks after it; `full`: it replays
   * every block from block 0.
   */
  sync?: 'snap' | 'full';
  snapDistance?: number;
  /**
   * A node at block 0 also joins from a snapshot, however few blocks behind, when a peer's hello
   * says that replaying its chain means at least this many operations, and that they cost more
   * than copying the records of the snapshot it serves (snap-sync.ts, RECORDS_PER_OPERATION).
   */
  snapOperations?: number;
  /**
   * Longest wait at the start of a snapshot join for the known servers that are not connected yet
   * (their manifests cross-check each other's).
   */
  snapGatherMs?: number;
  /** After a snapshot join, fetch the blocks below it from peers in the background (history). */
  fetchHistory?: boolean;
  /** A snapshot served to joining peers is taken anew once the head is this many blocks past it. */
  snapshotEvery?: number;
  /**
   * Serve snapshots to joining peers (kept on disk, two at a time: about twice the state's
   * entries); false: serve none, keep none.
   */
  serveSnapshots?: boolean;
  /**
   * Makes the libp2p metrics component of each host the node starts (nodeStop then nodeStart makes
   * a new one), beside this package's own socket counters; none by default.
   */
  libp2pMetrics?: () => Libp2pMetricsFactory;
}

export const DEFAULT_P2P_OPTIONS = {
  host: '0.0.0.0',
  inbound: true,
  port: DEFAULT_P2P_PORT,
  defaultPeerPort: DEFAULT_P2P_PORT,
  maxConnections: 64,
  maxPendingInbound: 10,
  maxInboundPerIp: 4,
  inboundConnectionsPerSecond: 5,
  handshakeTimeoutMs: 5000,
  rateLimits: RATE_LIMITS,
  statusIntervalMs: 15_000,
  dialIntervalMs: 1000,
  pingIntervalMs: 30_000,
  helloTimeoutMs: 10_000,
  autoBlacklistMs: 60 * 60 * 1000,
  manualBlacklistMs: 24 * 60 * 60 * 1000,
  startupGraceMs: 3000,
  discoveryIntervalMs: 30_000,
  discovery: false,
  /** As Bitcoin's eight outbound: enough paths that one partitioned or lying peer does not isolate. */
  outboundPeers: 8,
  /** About four minutes of backoff (1 s doubling to a minute) without one success. */
  forgetAfterAttempts: 8,
  rebroadcastIntervalMs: 10_000,
  syncRetryMs: 3000,
  /**
   * Clique forks of one or two blocks are routine (two producers out of turn at once, a block
   * that reached half the network); three is rare; more means a partition or another chain
   * (docs/decisions.md).
   */
  reorgWarnDepth: 3,
  sync: 'snap' as 'snap' | 'full',
  /**
   * About three hours of one-second blocks: a chain that short replays in seconds, and the node
   * then holds its whole history (a node joined from a snapshot holds blocks from its height on).
   */
  snapDistance: 10_000,
  /**
   * About a second of replay (some 55 us an operation): fewer replay about as fast as a snapshot
   * join sets up (the peers' gathering, the manifests, the headers).
   */
  snapOperations: 20_000,
  snapGatherMs: 2000,
  fetchHistory: true,
  snapshotEvery: 1000,
  serveSnapshots: true,
} as const;

/** The options with every default filled in (the peers, chain, log and rates are kept apart). */
export type ResolvedP2POptions = Required<
  Omit<P2PNodeOptions, 'chain' | 'log' | 'peers' | 'rateLimits' | 'libp2pMetrics'>
>;

export function resolveP2POptions(options: P2PNodeOptions): ResolvedP2POptions {
  const { chain, log, peers, rateLimits, libp2pMetrics, ...given } = options;
  const { rateLimits: _rates, ...defaults } = DEFAULT_P2P_OPTIONS;
  return withDefaults(defaults, given);
}
