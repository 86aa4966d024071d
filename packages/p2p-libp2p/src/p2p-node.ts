import { type Chain, ErrorCode } from '@chain/ledger';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { type GossipSub, gossipsub, TopicValidatorResult } from '@libp2p/gossipsub';
import { type Identify, identify } from '@libp2p/identify';
import type {
  Connection,
  Libp2p,
  MultiaddrConnection,
  PeerId,
  PrivateKey,
  Stream,
} from '@libp2p/interface';
import { type Ping, ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p } from 'libp2p';
import {
  addressOfMultiaddr,
  formatPeerAddress,
  isValidIp,
  type PeerAddress,
  parsePeerList,
  peerMultiaddrString,
} from './address';
import { Blacklist, type BlacklistEntry } from './blacklist';
import {
  BLOCKS_PROTOCOL,
  BlockSync,
  isInvalidBlockError,
  type SyncPeer,
  type SyncProgress,
  serveBlocks,
} from './block-sync';
import { badRequest, blacklistReason, networkError } from './errors';
import { FrameReader, writeFrame } from './framing';
import { InboundConnections } from './inbound-connections';
import {
  LIMITS,
  RATE_LIMITS,
  type RateLimitedKind,
  type RateLimits,
  type RequestProtocol,
  STREAM_LIMITS,
} from './limits';
import {
  decodeHello,
  decodePeerList,
  encodeHello,
  encodePeerList,
  type Hello,
  type TipInfo,
} from './messages';
import { BAN_SCORE, MisbehaviourScores, type Offence } from './misbehaviour';
import { type KnownServer, PeerBook } from './peer-book';
import {
  closeDuplicate,
  PeerConnections,
  RequestStreams,
  reattachGossip,
} from './peer-connections';
import { loadOrCreatePeerKey } from './peer-key';
import { installPromiseWithResolvers } from './polyfill';
import { PeerRateLimiter } from './rate-limiter';
import {
  type Direction,
  type IpTraffic,
  type MessageKind,
  SocketCounters,
  TrafficStats,
} from './traffic';

export const HELLO_PROTOCOL = '/chain/hello/1';
export const MEMPOOL_PROTOCOL = '/chain/mempool/1';
export const PEERS_PROTOCOL = '/chain/peers/1';
export const DEFAULT_P2P_PORT = 9714;

/** pino-compatible. */
export interface P2PLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface P2PNodeOptions {
  chain: Chain;
  /** Where the peer key, known peers and blacklist are kept (`<datadir>/p2p`). */
  dir: string;
  /** Address to listen on (and to dial from, when it is a specific address). */
  host?: string;
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
  /** How often the dialling side exchanges hellos again (tip updates, liveness). */
  statusIntervalMs?: number;
  /** How often known, unconnected servers are considered for dialling. */
  dialIntervalMs?: number;
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
   * Pending operations are gossiped again when the chain has not moved for this long (so one that
   * reached nobody, e.g. submitted while networking was off, is not stuck on this node).
   */
  rebroadcastIntervalMs?: number;
  /** Pause before asking a peer for blocks again after it failed. */
  syncRetryMs?: number;
  /** The chain's maxRollback. */
  maxRollback?: number;
}

export const DEFAULT_P2P_OPTIONS = {
  host: '0.0.0.0',
  port: DEFAULT_P2P_PORT,
  defaultPeerPort: DEFAULT_P2P_PORT,
  maxConnections: 64,
  maxPendingInbound: 10,
  maxInboundPerIp: 4,
  inboundConnectionsPerSecond: 5,
  handshakeTimeoutMs: 5000,
  rateLimits: RATE_LIMITS,
  statusIntervalMs: 5000,
  dialIntervalMs: 1000,
  helloTimeoutMs: 10_000,
  autoBlacklistMs: 60 * 60 * 1000,
  manualBlacklistMs: 24 * 60 * 60 * 1000,
  startupGraceMs: 3000,
  discoveryIntervalMs: 30_000,
  rebroadcastIntervalMs: 10_000,
  syncRetryMs: 3000,
  maxRollback: 64,
} as const;

/** nodeStatus `netstats`, PascalCoin's meaning of each field. */
export interface NetStats {
  /** Connections open now that completed the hello. */
  active: number;
  /** Of those, connections peers opened to this node. */
  clients: number;
  /** Of those, connections this node opened to servers. */
  servers: number;
  /** Known servers (nodeservers). */
  servers_t: number;
  /** Connections made since start, both ways. */
  total: number;
  /** Inbound connections since start. */
  tclients: number;
  /** Outbound connections since start. */
  tservers: number;
  /** Bytes received and sent on every connection since start (TCP payload). */
  breceived: number;
  bsend: number;
  /** IPs with traffic statistics (nodeIPStats). */
  ips: number;
}

/** getConnection entry, IP unmasked. */
export interface ConnectionInfo {
  /** True when this node opened it (the peer is a server to it). */
  server: boolean;
  ip: string;
  /** The peer's listening port when known from its hello, else the connection's remote port. */
  port: number;
  /** Seconds since it opened. */
  secs: number;
  sent: number;
  recv: number;
  /** From the peer's hello (empty before it). */
  appver: string;
  netver: number;
  netver_a: number;
  /** The peer's clock minus this node's, in seconds, at its hello. */
  timediff: number;
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
  /** True when no connected peer has a better tip, nothing is syncing and start-up is over. */
  isSynced(): boolean;
  /** Turns peer exchange on (nodeSearch): ask peers for the servers they know, and dial them. */
  enableDiscovery(): void;
  readonly discovery: boolean;
}

type Services = { identify: Identify; ping: Ping; pubsub: GossipSub };

/** A connection and what its hello said. */
interface PeerState extends SyncPeer {
  readonly connection: Connection;
  readonly peerId: string;
  readonly address: PeerAddress;
  readonly server: boolean;
  readonly openedAt: number;
  hello: Hello | undefined;
  timediff: number;
  head: TipInfo | undefined;
  syncRetryAt: number;
  helloTimer: ReturnType<typeof setTimeout> | undefined;
  /** A hello exchange this node started and that is not over. */
  helloInFlight: Promise<void> | undefined;
  /** Inbound streams of each request protocol open on this connection now. */
  readonly inboundStreams: Map<RequestProtocol, number>;
  /** Request streams open on this connection now, both ways (a duplicate closes once none are). */
  readonly requests: RequestStreams;
  /** A duplicate this node dialled, to be closed once its requests are over. */
  retiring: boolean;
}

/** Publishing again to peers whose topic subscription was not known yet. */
const PUBLISH_RETRIES = 5;
const PUBLISH_RETRY_MS = 300;

/** How long a banned peer's open connections stay up before they are closed. */
const BAN_LINGER_MS = 300;

/**
 * How long a duplicate connection stays up before it is closed (once its request streams are
 * over): the other end may not have seen the kept connection open yet, and start an exchange on
 * this one meanwhile. At most DUPLICATE_DRAIN_MS more is given to the exchanges under way.
 */
const DUPLICATE_LINGER_MS = 1000;
const DUPLICATE_DRAIN_MS = 10_000;

/** Attempts to move this node's gossip stream to a peer's kept connection, and the pause between. */
const GOSSIP_REATTACH_ATTEMPTS = 5;
const GOSSIP_REATTACH_RETRY_MS = 250;

const PROTOCOL_IDS: Readonly<Record<RequestProtocol, string>> = {
  hello: HELLO_PROTOCOL,
  blocks: BLOCKS_PROTOCOL,
  mempool: MEMPOOL_PROTOCOL,
  peers: PEERS_PROTOCOL,
};

/** Peer-store tag of peers that completed the hello: libp2p prunes untagged connections first. */
const HELLO_TAG = 'chain-hello';
const HELLO_TAG_VALUE = 100;

/** The offence of a stream closed inside, or over, a frame; undefined when not the peer's fault. */
function framingOffence(error: unknown): 'oversized' | 'truncated' | 'garbage' | undefined {
  const kind = (error as { kind?: unknown })?.kind;
  if (kind === 'oversized' || kind === 'truncated') return kind;
  if (error instanceof RangeError || (error as { code?: unknown })?.code === 1016) return 'garbage';
  return undefined;
}

const noopLog: P2PLogger = { debug() {}, info() {}, warn() {} };

function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/**
 * libp2p reports a listener that cannot bind as UnsupportedListenAddressesError; an operator needs
 * the plain cause (like node:net's error: code, address, port).
 */
function listenError(error: unknown, host: string, port: number): unknown {
  const message = String((error as Error)?.message ?? '');
  const code = /\b(EADDRINUSE|EADDRNOTAVAIL|EACCES)\b/.exec(message)?.[1];
  if (code === undefined) return error;
  return Object.assign(new Error(`P2P listener on ${host}:${port}: ${code}`, { cause: error }), {
    code,
    syscall: 'listen',
    address: host,
    port,
  });
}

export function createP2PNode(options: P2PNodeOptions): P2PNode {
  installPromiseWithResolvers();
  return new ChainP2PNode(options);
}

class ChainP2PNode implements P2PNode {
  private readonly chain: Chain;
  private readonly opts: Required<Omit<P2PNodeOptions, 'chain' | 'log' | 'peers' | 'rateLimits'>>;
  private readonly rateLimits: RateLimits;
  private readonly log: P2PLogger;
  private readonly blacklistStore: Blacklist;
  private readonly book: PeerBook;
  private readonly scores = new MisbehaviourScores();
  private readonly rates: PeerRateLimiter<RateLimitedKind>;
  private readonly inbound: InboundConnections;
  private readonly traffic = new TrafficStats();
  private readonly sockets = new SocketCounters();
  private readonly sync: BlockSync;
  private readonly peers = new PeerConnections<PeerState>(() => this.localPeerId);
  /** This node's peer id (the same key on every start). */
  private localPeerId = '';
  private readonly dialing = new Set<string>();
  private readonly blocksTopic: string;
  private readonly opsTopic: string;
  private readonly initialPeers: readonly string[];
  private privateKey: PrivateKey | undefined;
  private host: Libp2p<Services> | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private loaded = false;
  private timers: Array<ReturnType<typeof setInterval>> = [];
  private startedAt = 0;
  private helloSeen = false;
  private blockValidation: Promise<unknown> = Promise.resolve();
  private pendingOps: Uint8Array[] = [];
  private pendingOpsBytes = 0;
  private opsFlush: ReturnType<typeof setTimeout> | undefined;
  private discoveryOn = false;
  private actualPort: number;
  private readonly unsubscribes: Array<() => void> = [];

  constructor(options: P2PNodeOptions) {
    this.chain = options.chain;
    this.log = options.log ?? noopLog;
    this.initialPeers = options.peers ?? [];
    const d = DEFAULT_P2P_OPTIONS;
    this.opts = {
      dir: options.dir,
      host: options.host ?? d.host,
      port: options.port ?? d.port,
      defaultPeerPort: options.defaultPeerPort ?? d.defaultPeerPort,
      appVersion: options.appVersion,
      netProtocol: options.netProtocol,
      maxConnections: options.maxConnections ?? d.maxConnections,
      maxPendingInbound: options.maxPendingInbound ?? d.maxPendingInbound,
      maxInboundPerIp: options.maxInboundPerIp ?? d.maxInboundPerIp,
      inboundConnectionsPerSecond:
        options.inboundConnectionsPerSecond ?? d.inboundConnectionsPerSecond,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? d.handshakeTimeoutMs,
      statusIntervalMs: options.statusIntervalMs ?? d.statusIntervalMs,
      dialIntervalMs: options.dialIntervalMs ?? d.dialIntervalMs,
      helloTimeoutMs: options.helloTimeoutMs ?? d.helloTimeoutMs,
      autoBlacklistMs: options.autoBlacklistMs ?? d.autoBlacklistMs,
      manualBlacklistMs: options.manualBlacklistMs ?? d.manualBlacklistMs,
      startupGraceMs: options.startupGraceMs ?? d.startupGraceMs,
      discoveryIntervalMs: options.discoveryIntervalMs ?? d.discoveryIntervalMs,
      rebroadcastIntervalMs: options.rebroadcastIntervalMs ?? d.rebroadcastIntervalMs,
      syncRetryMs: options.syncRetryMs ?? d.syncRetryMs,
      maxRollback: options.maxRollback ?? d.maxRollback,
    };
    this.actualPort = this.opts.port;
    this.rateLimits = Object.freeze({ ...d.rateLimits, ...options.rateLimits });
    this.rates = new PeerRateLimiter(this.rateLimits);
    this.inbound = new InboundConnections({
      maxPerIp: this.opts.maxInboundPerIp,
      onFailedHandshake: (ip, port) => {
        if (this.host === undefined || this.blacklistStore.has(ip)) return;
        this.misbehavedIp(
          ip,
          port,
          'failedHandshake',
          ErrorCode.INVALID_DATA,
          'connection closed before its handshake completed',
        );
      },
    });
    this.blacklistStore = new Blacklist({ dir: this.opts.dir });
    this.book = new PeerBook(this.opts.dir);
    const genesisTag = bytesToHex(this.chain.genesisHash).slice(0, 16);
    this.blocksTopic = `/chain/${genesisTag}/blocks/1`;
    this.opsTopic = `/chain/${genesisTag}/ops/1`;
    this.sync = new BlockSync({
      chain: this.chain,
      maxRollback: this.opts.maxRollback,
      retryMs: this.opts.syncRetryMs,
      hooks: {
        peers: () => this.readyPeers(),
        misbehaved: (peer, offence, code, text) =>
          this.misbehaved(peer as PeerState, offence, code, text),
        traffic: (ip, kind, direction, bytes) => this.traffic.record(ip, kind, direction, bytes),
        log: (level, details, message) => this.log[level](details, message),
      },
    });
  }

  get running(): boolean {
    return this.host !== undefined;
  }

  get peerId(): string | undefined {
    return this.host?.peerId.toString();
  }

  get listenPort(): number {
    return this.actualPort;
  }

  get discovery(): boolean {
    return this.discoveryOn;
  }

  // ---------------------------------------------------------------- lifecycle

  start(): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(networkError('CLOSED', 'closed'));
    if (this.host !== undefined) return Promise.resolve();
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (!this.loaded) {
      this.privateKey = await loadOrCreatePeerKey(this.opts.dir);
      await this.blacklistStore.load();
      await this.book.load();
      for (const address of parsePeerList(this.initialPeers.join(';'), this.opts.defaultPeerPort)) {
        this.book.add(address);
      }
      this.unsubscribes.push(
        this.chain.onPending((bytes, origin) => {
          if (origin !== 'network') this.queueOperation(bytes);
        }),
        this.chain.onBlock((info, origin) => {
          if (origin === 'produced') void this.publishBlock(info.block);
        }),
      );
      this.loaded = true;
    }
    const host = await this.createHost();
    this.host = host;
    this.startedAt = Date.now();
    this.helloSeen = false;
    this.sync.resume();
    const listening = host
      .getMultiaddrs()
      .map(addressOfMultiaddr)
      .find((a) => a !== undefined);
    if (listening !== undefined) this.actualPort = listening.port;
    // Port 0 picks a free port once; a later nodeStart listens on the same one, so that peers that
    // know this node by its address find it again.
    if (this.opts.port === 0) this.opts.port = this.actualPort;
    this.timers.push(
      setInterval(() => this.dialKnownServers(), this.opts.dialIntervalMs),
      setInterval(() => this.refreshStatus(), this.opts.statusIntervalMs),
      setInterval(() => {
        if (this.discoveryOn) void this.exchangePeers();
      }, this.opts.discoveryIntervalMs),
      setInterval(() => this.rebroadcastIfStuck(), this.opts.rebroadcastIntervalMs),
    );
    for (const timer of this.timers) timer.unref?.();
    this.log.info(
      { peerId: host.peerId.toString(), port: this.actualPort, known: this.book.list().length },
      'p2p networking started',
    );
    this.dialKnownServers();
  }

  private async createHost(): Promise<Libp2p<Services>> {
    const host = this.opts.host;
    const family = host.includes(':') ? 'ip6' : 'ip4';
    const specific = host !== '0.0.0.0' && host !== '::';
    // A fresh options object per host: createLibp2p writes into it.
    const libp2p = await createLibp2p({
      privateKey: this.privateKey!,
      start: false,
      addresses: { listen: [`/${family}/${host}/tcp/${this.opts.port}`] },
      transports: [
        tcp({
          // Dial from the listening address when it is a specific one, so that peers see (and
          // blacklist) this node by the address it serves on.
          dialOpts: (specific ? { localAddress: host } : {}) as object,
        }),
      ],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux({ maxInboundStreams: LIMITS.inboundStreamsPerConnection })],
      connectionGater: {
        denyDialMultiaddr: (ma) => this.isBlacklisted(addressOfMultiaddr(ma)?.ip),
        denyInboundConnection: (maConn) => this.denyInbound(maConn),
        denyInboundUpgradedConnection: (_peer, maConn) => {
          this.inbound.upgraded(maConn);
          return false;
        },
      },
      connectionManager: {
        maxConnections: this.opts.maxConnections,
        maxIncomingPendingConnections: this.opts.maxPendingInbound,
        inboundConnectionThreshold: this.opts.inboundConnectionsPerSecond,
        inboundUpgradeTimeout: this.opts.handshakeTimeoutMs,
      },
      metrics: () => this.sockets.metrics,
      services: {
        identify: identify(),
        ping: ping(),
        pubsub: gossipsub({
          allowPublishToZeroTopicPeers: true,
          ignoreDuplicatePublishError: true,
          emitSelf: false,
          maxInboundDataLength: LIMITS.blockBytes + 64 * 1024,
        }),
      },
    });
    this.localPeerId = libp2p.peerId.toString();
    const serve = (
      protocol: RequestProtocol,
      handler: (stream: Stream, peer: PeerState) => Promise<void>,
    ) =>
      libp2p.handle(
        PROTOCOL_IDS[protocol],
        (stream, connection) => this.guardStream(protocol, stream, connection, handler),
        // libp2p's own limit, which resets without telling: above ours, so that ours (which
        // scores) is the one a peer meets.
        { maxInboundStreams: STREAM_LIMITS[protocol] * 2 },
      );
    await serve('hello', (stream, peer) => this.onHelloStream(stream, peer));
    await serve('blocks', (stream, peer) => this.serve(stream, peer, 'Blocks'));
    await serve('mempool', (stream, peer) => this.serve(stream, peer, 'Mempool'));
    await serve('peers', (stream, peer) => this.serve(stream, peer, 'Peers'));
    libp2p.addEventListener('connection:open', (event) => this.onConnectionOpen(event.detail));
    libp2p.addEventListener('connection:close', (event) => this.onConnectionClose(event.detail));
    try {
      await libp2p.start();
    } catch (error) {
      throw listenError(error, host, this.opts.port);
    }
    const pubsub = libp2p.services.pubsub;
    pubsub.topicValidators.set(this.blocksTopic, (peer, message) =>
      this.validateBlockMessage(peer, message.data),
    );
    pubsub.topicValidators.set(this.opsTopic, (peer, message) =>
      this.validateOperationsMessage(peer, message.data),
    );
    pubsub.subscribe(this.blocksTopic);
    pubsub.subscribe(this.opsTopic);
    return libp2p;
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const host = this.host;
    if (host === undefined) return;
    this.host = undefined;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    if (this.opsFlush !== undefined) clearTimeout(this.opsFlush);
    this.opsFlush = undefined;
    this.pendingOps = [];
    this.pendingOpsBytes = 0;
    await this.sync.stop();
    for (const peer of this.peers.all()) {
      if (peer.helloTimer !== undefined) clearTimeout(peer.helloTimer);
    }
    this.peers.clear();
    this.dialing.clear();
    await host.stop();
    this.log.info({}, 'p2p networking stopped');
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.stop();
      for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
      await this.blacklistStore.flush();
      await this.book.flush();
    })();
    return this.closing;
  }

  // ---------------------------------------------------------------- connections and hello

  private isBlacklisted(ip: string | undefined): boolean {
    return ip !== undefined && this.blacklistStore.blocks(ip);
  }

  /** The gater's check of a new inbound socket: blacklist, then the per-IP cap. */
  private denyInbound(maConn: MultiaddrConnection): boolean {
    const address = addressOfMultiaddr(maConn.remoteAddr);
    if (address === undefined) return false;
    if (this.isBlacklisted(address.ip)) return true;
    if (this.inbound.admit(maConn, address.ip, address.port)) return false;
    this.log.debug(
      { peer: address.ip, max: this.opts.maxInboundPerIp },
      'inbound connection refused: too many from this IP',
    );
    return true;
  }

  private onConnectionOpen(connection: Connection): void {
    const address = addressOfMultiaddr(connection.remoteAddr);
    if (address === undefined) return;
    if (this.blacklistStore.has(address.ip)) {
      connection.abort(new Error('blacklisted'));
      return;
    }
    const host = this.host;
    const requests = new RequestStreams();
    const peer: PeerState = {
      connection,
      peerId: connection.remotePeer.toString(),
      address,
      ip: address.ip,
      server: connection.direction === 'outbound',
      openedAt: Date.now(),
      hello: undefined,
      timediff: 0,
      head: undefined,
      syncRetryAt: 0,
      helloTimer: undefined,
      helloInFlight: undefined,
      inboundStreams: new Map(),
      requests,
      retiring: false,
      openStream: (protocol) =>
        requests.opened(() =>
          connection.newStream(protocol, { signal: AbortSignal.timeout(10_000) }),
        ),
    };
    this.peers.add(peer);
    peer.helloTimer = setTimeout(() => {
      if (peer.hello === undefined && this.host === host) {
        this.log.debug({ peer: address.ip }, 'no hello in time: disconnecting');
        void connection.close().catch(() => undefined);
      }
    }, this.opts.helloTimeoutMs);
    peer.helloTimer.unref?.();
    if (!this.peers.isKept(peer)) {
      this.log.debug({ peer: address.ip, port: address.port }, 'duplicate connection to a peer');
    } else if (peer.server) {
      void this.exchangeHello(peer);
    }
    this.closeDuplicates(peer.peerId);
  }

  private onConnectionClose(connection: Connection): void {
    const peer = this.peers.delete(connection.id);
    if (peer === undefined) return;
    if (peer.helloTimer !== undefined) clearTimeout(peer.helloTimer);
    const kept = this.peers.kept(peer.peerId);
    if (kept !== undefined) {
      this.log.debug({ peer: peer.ip, port: peer.address.port }, 'duplicate connection closed');
      this.carryOn(kept);
    } else if (peer.hello !== undefined) {
      this.log.debug({ peer: peer.ip, port: peer.address.port }, 'peer disconnected');
    }
  }

  /**
   * Closes the duplicates of a peer's kept connection that this node dialled (the peer closes the
   * ones it dialled: each end closes only its own, so the two never close both).
   */
  private closeDuplicates(peerId: string): void {
    for (const peer of this.peers.duplicates(peerId)) {
      if (!peer.server || peer.retiring) continue;
      peer.retiring = true;
      const stillDuplicate = () =>
        this.peers.get(peer.connection.id) === peer && !this.peers.isKept(peer);
      void closeDuplicate(peer.connection, peer.requests, stillDuplicate, {
        lingerMs: DUPLICATE_LINGER_MS,
        drainMs: DUPLICATE_DRAIN_MS,
      }).then((closed) => {
        if (!closed) peer.retiring = false;
      });
    }
  }

  /** Another connection to the peer closed: the kept one carries on alone (hello, gossip, sync). */
  private carryOn(kept: PeerState): void {
    if (kept.hello !== undefined) this.greet(kept);
    else if (kept.server) void this.exchangeHello(kept);
    this.closeDuplicates(kept.peerId);
    const host = this.host;
    if (host !== undefined) {
      reattachGossip(kept.connection, {
        identify: (connection) => host.services.identify.identify(connection),
        stillKept: () => this.host === host && this.peers.isKept(kept),
        attempts: GOSSIP_REATTACH_ATTEMPTS,
        retryMs: GOSSIP_REATTACH_RETRY_MS,
      });
    }
    this.sync.trigger();
  }

  private ourHello(): Hello {
    const head = this.chain.head();
    return {
      genesisHash: this.chain.genesisHash,
      network: this.chain.genesis.network,
      appVersion: this.opts.appVersion,
      netVer: this.opts.netProtocol.ver,
      netVerA: this.opts.netProtocol.ver_a,
      timestamp: Math.floor(Date.now() / 1000),
      listenPort: this.actualPort,
      head: { height: head.height, hash: head.hash, weight: head.weight },
    };
  }

  /** Asks a peer for its tip (a hello exchange), unless one is under way. */
  private exchangeHello(peer: PeerState): Promise<void> {
    peer.helloInFlight ??= this.helloRound(peer).finally(() => {
      peer.helloInFlight = undefined;
    });
    return peer.helloInFlight;
  }

  /** The asking side: send ours, read theirs. */
  private async helloRound(peer: PeerState): Promise<void> {
    let stream: Stream | undefined;
    try {
      stream = await peer.openStream(HELLO_PROTOCOL);
      const ours = encodeHello(this.ourHello());
      await writeFrame(stream, ours);
      this.traffic.record(peer.ip, 'Hello', 'Autosend', ours.length + 4);
      const theirs = await new FrameReader(stream, this.opts.helloTimeoutMs).expect(
        LIMITS.helloBytes,
      );
      this.traffic.record(peer.ip, 'Hello', 'Autoreceive', theirs.length + 4);
      await stream.close().catch(() => undefined);
      this.acceptHello(peer, theirs);
    } catch (error) {
      stream?.abort(error as Error);
      this.onProtocolError(peer, error, 'hello');
    }
  }

  /** The listening side: read theirs, answer with ours (also when refusing, so they see why). */
  private async onHelloStream(stream: Stream, peer: PeerState): Promise<void> {
    if (!this.withinRate(peer, 'hello', stream)) return;
    try {
      const theirs = await new FrameReader(stream, this.opts.helloTimeoutMs).expect(
        LIMITS.helloBytes,
      );
      this.traffic.record(peer.ip, 'Hello', 'Autoreceive', theirs.length + 4);
      const ours = encodeHello(this.ourHello());
      await writeFrame(stream, ours);
      this.traffic.record(peer.ip, 'Hello', 'Autosend', ours.length + 4);
      await stream.close().catch(() => undefined);
      this.acceptHello(peer, theirs);
    } catch (error) {
      stream.abort(error as Error);
      this.onProtocolError(peer, error, 'hello');
    }
  }

  private acceptHello(peer: PeerState, bytes: Uint8Array): void {
    let hello: Hello;
    try {
      hello = decodeHello(bytes);
    } catch (error) {
      this.misbehaved(
        peer,
        'badHandshake',
        ErrorCode.INVALID_DATA,
        `malformed hello: ${String((error as Error).message)}`,
      );
      return;
    }
    if (!equalBytes(hello.genesisHash, this.chain.genesisHash)) {
      this.misbehaved(
        peer,
        'badHandshake',
        ErrorCode.NETWORK,
        `GENESIS_MISMATCH peer is on network '${hello.network}' with genesis ${bytesToHex(hello.genesisHash).slice(0, 16)}, not ${bytesToHex(this.chain.genesisHash).slice(0, 16)}`,
        hello.listenPort,
      );
      return;
    }
    if (hello.netVer !== this.opts.netProtocol.ver) {
      this.misbehaved(
        peer,
        'badHandshake',
        ErrorCode.NETWORK,
        `PROTOCOL_MISMATCH peer speaks net protocol ${hello.netVer}, this node ${this.opts.netProtocol.ver}`,
        hello.listenPort,
      );
      return;
    }
    peer.hello = hello;
    peer.head = hello.head;
    peer.timediff = hello.timestamp - Math.floor(Date.now() / 1000);
    if (peer.helloTimer !== undefined) clearTimeout(peer.helloTimer);
    peer.helloTimer = undefined;
    // A duplicate's hello is answered, and greets nobody: the kept connection does.
    if (this.peers.isKept(peer)) this.greet(peer);
    this.sync.trigger();
  }

  /** The first hello of a peer's session (on its kept connection): once, however many it has. */
  private greet(peer: PeerState): void {
    const hello = peer.hello;
    if (hello === undefined || !this.peers.greet(peer.peerId)) return;
    this.helloSeen = true;
    void this.host?.peerStore
      .merge(peer.connection.remotePeer, { tags: { [HELLO_TAG]: { value: HELLO_TAG_VALUE } } })
      .catch(() => undefined);
    const listening = this.listeningAddress(peer);
    if (listening !== undefined) {
      this.book.add(listening);
      this.book.connected(listening, peer.peerId);
    }
    this.log.info(
      {
        peer: peer.ip,
        port: listening?.port ?? peer.address.port,
        direction: peer.server ? 'outbound' : 'inbound',
        height: hello.head.height,
        appver: hello.appVersion,
      },
      'peer connected',
    );
    void this.fetchMempool(peer);
  }

  /** Where a peer accepts connections: the dialled address, or its IP with its hello's port. */
  private listeningAddress(peer: PeerState): PeerAddress | undefined {
    if (peer.server) return peer.address;
    const port = peer.hello?.listenPort ?? 0;
    return port > 0 ? { ip: peer.ip, port } : undefined;
  }

  /** The kept connection of each peer, once its hello is done. */
  private readyPeers(): PeerState[] {
    return this.peers
      .keptAll()
      .filter((p) => p.hello !== undefined && p.connection.status === 'open');
  }

  /** A connected peer that completed its hello and is not blacklisted (its kept connection first). */
  private peerByPeerId(peerId: PeerId | string): PeerState | undefined {
    const id = peerId.toString();
    const kept = this.peers.kept(id);
    for (const peer of [kept, ...this.peers.of(id)]) {
      if (peer?.hello !== undefined && !this.blacklistStore.has(peer.ip)) return peer;
    }
    return undefined;
  }

  private refreshStatus(): void {
    for (const peer of this.readyPeers()) {
      if (peer.server) void this.exchangeHello(peer);
    }
  }

  // ---------------------------------------------------------------- misbehaviour

  private onProtocolError(peer: PeerState, error: unknown, what: string): void {
    const offence = framingOffence(error);
    // A message cut short as a duplicate connection closes is no fault of the peer.
    const kept = this.peers.kept(peer.peerId);
    const onDuplicate = kept !== undefined && kept !== peer;
    if (offence === 'oversized') {
      this.misbehaved(peer, 'oversized', ErrorCode.INVALID_DATA, `oversized ${what} message`);
    } else if (offence === 'truncated' && !onDuplicate) {
      this.misbehaved(peer, 'truncated', ErrorCode.INVALID_DATA, `${what} message cut short`);
    } else if (offence === 'garbage') {
      this.misbehaved(peer, 'garbage', ErrorCode.INVALID_DATA, `malformed ${what} message`);
    } else {
      this.log.debug(
        { peer: peer.ip, err: String((error as Error)?.message ?? error) },
        `${what} failed`,
      );
    }
  }

  /** Scores an offence; at BAN_SCORE the IP is blacklisted (with its listening port if known). */
  private misbehaved(
    peer: PeerState,
    offence: Offence,
    code: number,
    text: string,
    listenPort?: number,
  ): void {
    const port = listenPort || this.listeningAddress(peer)?.port || peer.address.port;
    this.misbehavedIp(peer.ip, port, offence, code, text);
  }

  private misbehavedIp(ip: string, port: number, offence: Offence, code: number, text: string) {
    // Already banned: what is still in flight from it changes nothing.
    if (this.blacklistStore.has(ip)) return;
    const score = this.scores.add(ip, offence);
    this.log.warn({ peer: ip, offence, score, error: text }, 'peer misbehaved');
    if (score < BAN_SCORE) return;
    this.scores.forget(ip);
    this.ban(ip, port, blacklistReason(code, text), false);
  }

  private ban(ip: string, port: number, reason: string, manual: boolean): BlacklistEntry {
    const entry = this.blacklistStore.add({
      ip,
      port,
      reason,
      manual,
      durationMs: manual ? this.opts.manualBlacklistMs : this.opts.autoBlacklistMs,
    });
    this.log.warn({ ip, reason, until: new Date(entry.expiresAt).toISOString() }, 'blacklisted');
    // New connections are refused at once (gater), and so are the ones still in their handshake:
    // there is nothing to tell them. Open ones are closed after a moment, so that a reply in flight
    // (e.g. the hello that tells a peer of another chain why) still gets through.
    this.inbound.abortHandshakes(ip, new Error('blacklisted'));
    const connections = this.peers
      .all()
      .filter((peer) => peer.ip === ip)
      .map((peer) => peer.connection);
    const hangUp = setTimeout(() => {
      for (const connection of connections) {
        void connection.close().catch(() => connection.abort(new Error('blacklisted')));
      }
    }, BAN_LINGER_MS);
    hangUp.unref?.();
    return entry;
  }

  // ---------------------------------------------------------------- gossip

  /**
   * Gossipsub validates messages concurrently; blocks are validated one at a time, in arrival order,
   * so that a block is checked after its parent was imported.
   */
  private validateBlockMessage(from: PeerId, data: Uint8Array): Promise<TopicValidatorResult> {
    // Counted before it is queued: a flood must not grow the queue.
    const peer = this.peerByPeerId(from);
    if (peer === undefined) return Promise.resolve(TopicValidatorResult.Ignore);
    this.traffic.record(peer.ip, 'NewBlock', 'Autoreceive', data.length);
    if (!this.withinRate(peer, 'blockGossip')) return Promise.resolve(TopicValidatorResult.Ignore);
    const result = this.blockValidation.then(() => this.validateBlock(from, data));
    this.blockValidation = result.catch(() => undefined);
    return result;
  }

  private async validateBlock(from: PeerId, data: Uint8Array): Promise<TopicValidatorResult> {
    const peer = this.peerByPeerId(from);
    if (peer === undefined) return TopicValidatorResult.Ignore;
    let placement: ReturnType<Chain['inspectBlock']>;
    try {
      placement = this.chain.inspectBlock(data);
    } catch (error) {
      this.misbehaved(
        peer,
        'garbage',
        ErrorCode.INVALID_DATA,
        `malformed block: ${(error as Error).message}`,
      );
      return TopicValidatorResult.Reject;
    }
    if ((await this.chain.heightOfHash(placement.hash)) !== undefined) {
      return TopicValidatorResult.Ignore;
    }
    const head = this.chain.head();
    if (
      this.sync.syncing ||
      placement.height !== head.height + 1 ||
      !equalBytes(placement.prevHash, head.hash)
    ) {
      // Ahead of us, or a competing block: learn the peer's tip (weight) and let sync decide.
      void this.exchangeHello(peer);
      return TopicValidatorResult.Ignore;
    }
    try {
      await this.chain.importBlock(data);
      const now = this.chain.head();
      if (equalBytes(now.hash, placement.hash))
        peer.head = { height: now.height, hash: now.hash, weight: now.weight };
      return TopicValidatorResult.Accept;
    } catch (error) {
      if (isInvalidBlockError(error)) {
        this.misbehaved(peer, 'invalidBlock', error.code, `${error.reason} ${error.message}`);
        return TopicValidatorResult.Reject;
      }
      void this.exchangeHello(peer);
      return TopicValidatorResult.Ignore;
    }
  }

  private async validateOperationsMessage(
    from: PeerId,
    data: Uint8Array,
  ): Promise<TopicValidatorResult> {
    const peer = this.peerByPeerId(from);
    if (peer === undefined) return TopicValidatorResult.Ignore;
    this.traffic.record(peer.ip, 'NewOperations', 'Autoreceive', data.length);
    if (!this.withinRate(peer, 'operationsGossip')) return TopicValidatorResult.Ignore;
    if (data.length > LIMITS.operationsGossipBytes) {
      this.misbehaved(peer, 'oversized', ErrorCode.INVALID_DATA, 'oversized operations message');
      return TopicValidatorResult.Reject;
    }
    const admitted = await this.submitOperations(peer, data);
    if (admitted === undefined) return TopicValidatorResult.Reject;
    return admitted > 0 ? TopicValidatorResult.Accept : TopicValidatorResult.Ignore;
  }

  /** Submits a raw-operations blob from a peer; undefined when it does not decode. */
  private async submitOperations(peer: PeerState, blob: Uint8Array): Promise<number | undefined> {
    let ops: Uint8Array[];
    try {
      ops = this.chain.decodeRaw(blob);
    } catch (error) {
      this.misbehaved(
        peer,
        'invalidOperations',
        ErrorCode.INVALID_DATA,
        `malformed operations: ${(error as Error).message}`,
      );
      return undefined;
    }
    let admitted = 0;
    for (const op of ops) {
      try {
        await this.chain.submitOperation(op, { local: false });
        admitted++;
      } catch {
        // Known already, or not valid on this node's state (yet): not the peer's fault.
      }
    }
    return admitted;
  }

  private queueOperation(bytes: Uint8Array): void {
    if (this.host === undefined) return;
    this.pendingOps.push(bytes);
    this.pendingOpsBytes += bytes.length + 4;
    if (this.pendingOpsBytes >= LIMITS.operationsGossipBytes / 2) {
      this.flushOperations();
    } else {
      this.opsFlush ??= setTimeout(() => this.flushOperations(), 5);
    }
  }

  /** Operations gossip in batches (a raw-operations blob) of what was submitted within ~5 ms. */
  private flushOperations(): void {
    if (this.opsFlush !== undefined) clearTimeout(this.opsFlush);
    this.opsFlush = undefined;
    const ops = this.pendingOps;
    this.pendingOps = [];
    this.pendingOpsBytes = 0;
    const host = this.host;
    // Without peers there is nobody to tell: the mempool exchange on connecting (and the
    // rebroadcast) carries what is pending to peers that come later.
    if (host === undefined || ops.length === 0 || this.readyPeers().length === 0) return;
    const blob = this.chain.encodeRaw(ops);
    void this.publish(host, this.opsTopic, blob, 'NewOperations');
  }

  private lastRebroadcastHead: Uint8Array | undefined;

  private rebroadcastIfStuck(): void {
    const head = this.chain.head().hash;
    const stuck =
      this.lastRebroadcastHead !== undefined && equalBytes(head, this.lastRebroadcastHead);
    this.lastRebroadcastHead = head;
    if (!stuck || this.chain.pendingCount() === 0) return;
    for (const op of this.chain.pendingOperationBytes(10_000)) this.queueOperation(op);
  }

  private async publishBlock(height: number): Promise<void> {
    const host = this.host;
    if (host === undefined || this.readyPeers().length === 0) return;
    const bytes = await this.chain.getBlockBytes(height);
    if (bytes === undefined) return;
    await this.publish(host, this.blocksTopic, bytes, 'NewBlock');
  }

  /**
   * Publishes to every peer subscribed to the topic. A peer connected so recently that its
   * subscription is not known yet would miss the message: while some ready peer is not among the
   * recipients, it is published again (a new message; receivers drop what they know).
   */
  private async publish(
    host: Libp2p<Services>,
    topic: string,
    data: Uint8Array,
    kind: MessageKind,
    attempt = 0,
  ): Promise<void> {
    try {
      const { recipients } = await host.services.pubsub.publish(topic, data);
      const reached = new Set(recipients.map((peerId) => peerId.toString()));
      for (const id of reached) {
        const peer = this.peerByPeerId(id);
        if (peer !== undefined) this.traffic.record(peer.ip, kind, 'Autosend', data.length);
      }
      const missed = this.readyPeers().some((peer) => !reached.has(peer.peerId));
      if (missed && attempt < PUBLISH_RETRIES) {
        const retry = setTimeout(() => {
          if (this.host === host) void this.publish(host, topic, data, kind, attempt + 1);
        }, PUBLISH_RETRY_MS);
        retry.unref?.();
      }
    } catch (error) {
      this.log.debug({ topic, err: String((error as Error).message) }, 'publish failed');
    }
  }

  // ---------------------------------------------------------------- request protocols

  /**
   * Runs a request protocol's handler for an inbound stream, unless the connection already has
   * its protocol's limit of them open (STREAM_LIMITS): then the stream is reset and the peer scored.
   */
  private async guardStream(
    protocol: RequestProtocol,
    stream: Stream,
    connection: Connection,
    handler: (stream: Stream, peer: PeerState) => Promise<void>,
  ): Promise<void> {
    const peer = this.peers.get(connection.id);
    if (peer === undefined) {
      stream.abort(new Error('unknown connection'));
      return;
    }
    const open = peer.inboundStreams.get(protocol) ?? 0;
    if (open >= STREAM_LIMITS[protocol]) {
      stream.abort(new Error(`too many ${protocol} streams`));
      this.misbehaved(
        peer,
        'tooManyStreams',
        ErrorCode.NETWORK,
        `TOO_MANY_STREAMS more than ${STREAM_LIMITS[protocol]} ${protocol} streams at once`,
      );
      return;
    }
    // Counted until the stream is closed both ways (or reset), not until the handler returns: a
    // peer that leaves its side open keeps holding the place, as it does in libp2p's own count.
    peer.inboundStreams.set(protocol, open + 1);
    peer.requests.track(stream);
    const release = () =>
      peer.inboundStreams.set(protocol, (peer.inboundStreams.get(protocol) ?? 1) - 1);
    if (stream.status === 'open' || stream.status === 'closing') {
      stream.addEventListener('close', release, { once: true });
    } else {
      release();
    }
    await handler(stream, peer);
  }

  /**
   * Takes a token of the peer's rate for `kind`; without one the message is dropped (its stream
   * reset, when it has one) and the peer scored.
   */
  private withinRate(peer: PeerState, kind: RateLimitedKind, stream?: Stream): boolean {
    if (this.rates.take(peer.ip, kind)) return true;
    stream?.abort(new Error(`${kind} rate exceeded`));
    this.misbehaved(
      peer,
      'flood',
      ErrorCode.NETWORK,
      `FLOOD ${kind} messages beyond ${this.rateLimits[kind].perSecond}/s`,
    );
    return false;
  }

  private async serve(stream: Stream, peer: PeerState, kind: 'Blocks' | 'Mempool' | 'Peers') {
    if (peer.hello === undefined) {
      stream.abort(new Error('no hello yet'));
      return;
    }
    const rateKind = (
      { Blocks: 'blocksRequest', Mempool: 'mempoolRequest', Peers: 'peersRequest' } as const
    )[kind];
    if (!this.withinRate(peer, rateKind, stream)) return;
    try {
      if (kind === 'Blocks') {
        await serveBlocks(this.chain, stream, peer.ip, {
          traffic: (ip, k, direction, bytes) => this.traffic.record(ip, k, direction, bytes),
        });
      } else if (kind === 'Mempool') {
        let sent = 0;
        const ops = this.chain.pendingOperationBytes(20_000);
        let batch: Uint8Array[] = [];
        let batchBytes = 0;
        const flush = async () => {
          if (batch.length === 0) return;
          const blob = this.chain.encodeRaw(batch);
          await writeFrame(stream, blob);
          sent += blob.length + 4;
          batch = [];
          batchBytes = 0;
        };
        for (const op of ops) {
          if (batchBytes + op.length + 4 > LIMITS.operationsGossipBytes - 8) await flush();
          batch.push(op);
          batchBytes += op.length + 4;
        }
        await flush();
        this.record(peer, 'Mempool', 'Autosend', sent);
        await stream.close();
      } else {
        const list = encodePeerList(
          this.book
            .list()
            .filter((s) => s.lastcon > 0 && !this.blacklistStore.has(s.ip))
            .slice(0, 200),
        );
        await writeFrame(stream, list);
        this.record(peer, 'Peers', 'Autosend', list.length + 4);
        await stream.close();
      }
    } catch (error) {
      stream.abort(error as Error);
      this.onProtocolError(peer, error, kind.toLowerCase());
    }
  }

  private record(peer: PeerState, kind: MessageKind, direction: Direction, bytes: number): void {
    this.traffic.record(peer.ip, kind, direction, bytes);
  }

  /** After a hello: take the peer's pending operations (they may not have reached this node). */
  private async fetchMempool(peer: PeerState): Promise<void> {
    let stream: Stream | undefined;
    try {
      stream = await peer.openStream(MEMPOOL_PROTOCOL);
      await stream.close();
      const reader = new FrameReader(stream);
      let total = 0;
      let received = 0;
      for (;;) {
        const blob = await reader.next(LIMITS.operationsGossipBytes);
        if (blob === undefined) break;
        received += blob.length + 4;
        if (received > LIMITS.mempoolResponseBytes)
          throw Object.assign(new Error('mempool too big'), { kind: 'oversized' });
        total += (await this.submitOperations(peer, blob)) ?? 0;
      }
      this.record(peer, 'Mempool', 'Autoreceive', received);
      if (total > 0)
        this.log.debug({ peer: peer.ip, operations: total }, 'took pending operations');
    } catch (error) {
      stream?.abort(error as Error);
      this.onProtocolError(peer, error, 'mempool');
      // Cut short by the close of a duplicate: the kept connection brings them.
      const kept = this.peers.kept(peer.peerId);
      if (kept !== undefined && kept !== peer && kept.hello !== undefined) {
        void this.fetchMempool(kept);
      }
    }
  }

  private async exchangePeers(): Promise<void> {
    for (const peer of this.readyPeers()) {
      let stream: Stream | undefined;
      try {
        stream = await peer.openStream(PEERS_PROTOCOL);
        await stream.close();
        const bytes = await new FrameReader(stream).expect(LIMITS.peersResponseBytes);
        this.record(peer, 'Peers', 'Autoreceive', bytes.length + 4);
        let added = 0;
        for (const entry of decodePeerList(bytes)) {
          if (!isValidIp(entry.ip) || entry.port < 1) continue;
          if (this.isSelf(entry)) continue;
          if (this.book.add(entry)) added++;
        }
        if (added > 0) this.log.info({ from: peer.ip, added }, 'learnt servers by peer exchange');
      } catch (error) {
        stream?.abort(error as Error);
        this.onProtocolError(peer, error, 'peers');
      }
    }
    this.dialKnownServers();
  }

  private isSelf(address: PeerAddress): boolean {
    if (address.port !== this.actualPort) return false;
    const host = this.opts.host;
    return (
      address.ip === host || ((host === '0.0.0.0' || host === '::') && /^127\./.test(address.ip))
    );
  }

  // ---------------------------------------------------------------- dialling

  /**
   * Connected to the server at `address`: by a connection this node dialled there, one whose hello
   * gave that listening port, or (before any hello) one from the peer id last met there.
   */
  private isConnectedTo(address: PeerAddress): boolean {
    const knownId = this.book.get(address)?.peerId;
    for (const peer of this.peers.all()) {
      if (knownId !== undefined && peer.peerId === knownId) return true;
      if (peer.ip !== address.ip) continue;
      if (peer.server && peer.address.port === address.port) return true;
      if (peer.hello?.listenPort === address.port) return true;
    }
    return false;
  }

  private dialKnownServers(): void {
    const host = this.host;
    if (host === undefined) return;
    for (const server of this.book.due()) {
      if (this.dialing.size >= 8) break;
      const key = formatPeerAddress(server);
      if (this.dialing.has(key) || this.isConnectedTo(server) || this.isSelf(server)) continue;
      if (this.blacklistStore.has(server.ip)) continue;
      this.dialing.add(key);
      this.book.attempted(server);
      void host
        .dial(multiaddr(peerMultiaddrString(server)), { signal: AbortSignal.timeout(10_000) })
        .then((connection) => this.book.connected(server, connection.remotePeer.toString()))
        .catch((error: Error) => {
          if (/dial self/i.test(error.message)) this.book.remove(server);
          // Not a failure when the server is connected meanwhile (it dialled this node).
          else if (!this.isConnectedTo(server)) this.book.failed(server);
        })
        .finally(() => this.dialing.delete(key));
    }
  }

  // ---------------------------------------------------------------- RPC-facing

  addPeers(list: string): number {
    const addresses = parsePeerList(list, this.opts.defaultPeerPort);
    let accepted = 0;
    for (const address of addresses) {
      if (this.blacklistStore.has(address.ip)) continue;
      this.book.add(address);
      accepted++;
    }
    this.dialKnownServers();
    return accepted;
  }

  netStats(): NetStats {
    const ready = this.readyPeers();
    const bytes = this.sockets.totals();
    const totals = this.peers.totals();
    return {
      active: ready.length,
      clients: ready.filter((p) => !p.server).length,
      servers: ready.filter((p) => p.server).length,
      servers_t: this.book.list().length,
      total: totals.total,
      tclients: totals.inbound,
      tservers: totals.outbound,
      breceived: bytes.received,
      bsend: bytes.sent,
      ips: this.traffic.ipCount,
    };
  }

  knownServers(): KnownServer[] {
    return this.book.list();
  }

  connections(): ConnectionInfo[] {
    const now = Date.now();
    return this.peers
      .all()
      .filter((p) => p.connection.status === 'open')
      .map((peer) => {
        const bytes = this.sockets.connection(formatPeerAddress(peer.address));
        return {
          server: peer.server,
          ip: peer.ip,
          port: this.listeningAddress(peer)?.port ?? peer.address.port,
          secs: Math.floor((now - peer.openedAt) / 1000),
          sent: bytes.sent,
          recv: bytes.received,
          appver: peer.hello?.appVersion ?? '',
          netver: peer.hello?.netVer ?? 0,
          netver_a: peer.hello?.netVerA ?? 0,
          timediff: peer.timediff,
          peerId: peer.peerId,
        };
      });
  }

  addBlacklist(ip: string, why?: string): BlacklistEntry {
    if (!isValidIp(ip)) throw badRequest('BAD_IP', `'${ip}' is not an IP address`, 'ip');
    return this.ban(ip, 0, why !== undefined && why.length > 0 ? why : 'manual', true);
  }

  blacklist(): BlacklistEntry[] {
    return this.blacklistStore.list();
  }

  /** Clears the blacklist and dials the known servers it kept this node from, at once. */
  clearBlacklist(): number {
    const cleared = this.blacklistStore.clear();
    this.dialKnownServers();
    return cleared;
  }

  ipStats(ip?: string): IpTraffic[] {
    if (ip === undefined) return this.traffic.all();
    const entry = this.traffic.get(ip);
    return entry === undefined ? [] : [entry];
  }

  syncProgress(): SyncProgress {
    return this.sync.progress();
  }

  isSynced(): boolean {
    if (this.host === undefined) return true;
    if (this.sync.syncing || this.sync.bestPeer() !== undefined) return false;
    const waiting =
      !this.helloSeen &&
      this.book.list().length > 0 &&
      Date.now() - this.startedAt < this.opts.startupGraceMs;
    return !waiting;
  }

  enableDiscovery(): void {
    const wasOn = this.discoveryOn;
    this.discoveryOn = true;
    if (!wasOn) this.log.info({}, 'peer discovery on (peer exchange)');
    void this.exchangePeers();
  }
}
