import { join } from 'node:path';
import { ErrorCode } from '@chain/ledger';
import { echoed, withDefaults } from '@chain/spec';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { gossipsub } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import type { Libp2p, PrivateKey } from '@libp2p/interface';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { createLibp2p } from 'libp2p';
import { Blacklist, type BlacklistEntry } from './discipline/blacklist';
import type { Offence } from './discipline/misbehaviour';
import { PeerDiscipline } from './discipline/peer-discipline';
import { badRequest, networkError } from './errors';
import { Gossip } from './gossip/gossip';
import type { ConnectionInfo, NetStats, P2PNode } from './p2p-api';
import {
  DEFAULT_P2P_OPTIONS,
  type P2PLogger,
  type P2PNodeOptions,
  type ResolvedP2POptions,
  resolveP2POptions,
} from './p2p-options';
import { addressOfMultiaddr, isValidIp, parsePeerList } from './peers/address';
import { ConnectionManager } from './peers/connection-manager';
import { HelloExchange } from './peers/hello-exchange';
import { InboundConnections } from './peers/inbound-connections';
import { type KnownServer, PeerBook } from './peers/peer-book';
import { PeerConnections } from './peers/peer-connections';
import { loadOrCreatePeerKey } from './peers/peer-key';
import { type P2PContext, type PeerState, readyPeers, type Services } from './peers/peer-state';
import { installPromiseWithResolvers } from './polyfill';
import { RequestServing } from './serving/request-serving';
import { SnapshotServer } from './serving/snapshot-serving';
import { connectionInfos, ipStats, netStats } from './stats/network-stats';
import { type IpTraffic, SocketCounters, TrafficStats } from './stats/traffic';
import { BlockSync } from './sync/block-sync';
import { HistoryFetch } from './sync/history-fetch';
import { SnapSync } from './sync/snap-sync';
import type { Reorganization, SyncPeer, SyncProgress } from './sync/sync-types';
import { LIMITS } from './wire/limits';
import type { RateLimits } from './wire/message-table';

const noopLog: P2PLogger = { debug() {}, info() {}, warn() {} };

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

/**
 * The P2P node: starts and stops the libp2p host and wires its parts together (connections,
 * hello, gossip, request serving, block sync, discipline); the RPC-facing surface.
 */
class ChainP2PNode implements P2PNode {
  private readonly ctx: P2PContext;
  private readonly opts: ResolvedP2POptions;
  private readonly inbound: InboundConnections;
  private readonly sockets = new SocketCounters();
  private readonly discipline: PeerDiscipline;
  private readonly hello: HelloExchange;
  private readonly gossip: Gossip;
  private readonly requests: RequestServing;
  private readonly connectionManager: ConnectionManager;
  private readonly sync: BlockSync;
  private readonly snap: SnapSync;
  private readonly history: HistoryFetch;
  private readonly snapshots: SnapshotServer;
  private readonly initialPeers: readonly string[];
  private readonly libp2pMetrics: P2PNodeOptions['libp2pMetrics'];
  /** This node's peer id (the same key on every start). */
  private localPeerId = '';
  private privateKey: PrivateKey | undefined;
  private host: Libp2p<Services> | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private loaded = false;
  private timers: Array<ReturnType<typeof setInterval>> = [];
  private startedAt = 0;
  private discoveryOn = false;
  private actualPort: number;
  private readonly unsubscribes: Array<() => void> = [];
  private lastReorg: Reorganization | undefined;
  private readonly reorgListeners = new Set<(reorganization: Reorganization) => void>();

  constructor(options: P2PNodeOptions) {
    this.opts = resolveP2POptions(options);
    this.initialPeers = options.peers ?? [];
    this.libp2pMetrics = options.libp2pMetrics;
    this.actualPort = this.opts.port;
    const rateLimits: RateLimits = Object.freeze(
      withDefaults(DEFAULT_P2P_OPTIONS.rateLimits, options.rateLimits),
    );
    this.ctx = {
      chain: options.chain,
      opts: this.opts,
      log: options.log ?? noopLog,
      peers: new PeerConnections<PeerState>(() => this.localPeerId),
      traffic: new TrafficStats(),
      book: new PeerBook(this.opts.dir),
      blacklist: new Blacklist({ dir: this.opts.dir }),
      host: () => this.host,
      listenPort: () => this.actualPort,
    };
    this.inbound = new InboundConnections({
      maxPerIp: this.opts.maxInboundPerIp,
      onFailedHandshake: (ip, port) => {
        if (this.host === undefined || this.ctx.blacklist.has(ip)) return;
        this.discipline.misbehavedIp(
          ip,
          port,
          'failedHandshake',
          ErrorCode.INVALID_DATA,
          'connection closed before its handshake completed',
        );
      },
    });
    this.discipline = new PeerDiscipline(this.ctx, rateLimits, this.inbound);
    const syncHooks = {
      peers: () => readyPeers(this.ctx),
      misbehaved: (peer: SyncPeer, offence: Offence, code: number, text: string) =>
        this.discipline.misbehaved(peer as PeerState, offence, code, text),
      log: (level: 'debug' | 'info' | 'warn', details: object, message: string) =>
        this.ctx.log[level](details, message),
    };
    this.snap = new SnapSync({
      chain: this.ctx.chain,
      mode: this.opts.sync,
      distance: this.opts.snapDistance,
      operations: this.opts.snapOperations,
      gatherMs: this.opts.snapGatherMs,
      dir: join(this.opts.dir, 'snapshot-join'),
      hooks: {
        ...syncHooks,
        unconnectedServers: () => {
          const ready = new Set(readyPeers(this.ctx).map((p) => p.peerId));
          return this.ctx.book.list().filter((s) => !ready.has(s.peerId ?? '')).length;
        },
      },
    });
    this.snapshots = new SnapshotServer(
      this.ctx.chain,
      join(this.opts.dir, 'served-snapshots'),
      this.opts.serveSnapshots ? this.opts.snapshotEvery : 0,
      (ip, kind, bytes) => this.ctx.traffic.record(ip, kind, 'Autosend', bytes),
      (details, message) => this.ctx.log.info(details, message),
    );
    this.history = new HistoryFetch({
      chain: this.ctx.chain,
      hooks: {
        ...syncHooks,
        traffic: (ip, kind, direction, bytes) =>
          this.ctx.traffic.record(ip, kind, direction, bytes),
      },
      busy: () => this.sync.syncing || !this.opts.fetchHistory,
    });
    this.sync = new BlockSync({
      chain: this.ctx.chain,
      settings: this.opts,
      snap: this.snap,
      hooks: {
        peers: () => readyPeers(this.ctx),
        misbehaved: (peer, offence, code, text) =>
          this.discipline.misbehaved(peer as PeerState, offence, code, text),
        traffic: (ip, kind, direction, bytes) =>
          this.ctx.traffic.record(ip, kind, direction, bytes),
        log: (level, details, message) => this.ctx.log[level](details, message),
        reorganized: (reorganization) => this.reorganized(reorganization),
      },
    });
    this.hello = new HelloExchange(this.ctx, this.discipline, {
      snapshotRecords: () => this.snapshots.servedRecords(),
      greeted: (peer) => void this.requests.fetchMempool(peer),
      tipLearnt: () => {
        this.sync.trigger();
        this.history.trigger();
      },
    });
    this.gossip = new Gossip(this.ctx, this.discipline, {
      syncing: () => this.sync.syncing,
      askTip: (peer) => void this.hello.exchange(peer),
    });
    this.requests = new RequestServing(this.ctx, this.discipline, {
      serveHello: (stream, peer) => this.hello.serve(stream, peer),
      submitOperations: (peer, blob) => this.gossip.submitOperations(peer, blob),
      dialKnownServers: () => this.connectionManager.dialKnownServers(),
      serveSnapshot: (stream, peer) => this.snapshots.serve(stream, peer.ip),
    });
    this.connectionManager = new ConnectionManager(this.ctx, this.inbound, {
      exchangeHello: (peer) => {
        // Until a first hello completes, this node may be behind: its first sync request saves
        // the stream's negotiation (a round trip) on a stream opened to the peer it dialled.
        if (!this.hello.helloSeen) this.sync.preopen(peer);
        void this.hello.exchange(peer);
      },
      greet: (peer) => this.hello.greet(peer),
      peersChanged: () => this.sync.trigger(),
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

  /** Once per node: the peer key, the stores, and the chain events that gossip. */
  private async load(): Promise<void> {
    const { chain, book, blacklist } = this.ctx;
    this.privateKey = await loadOrCreatePeerKey(this.opts.dir);
    await blacklist.load();
    await book.load();
    for (const address of parsePeerList(this.initialPeers.join(';'), this.opts.defaultPeerPort)) {
      book.add(address);
    }
    this.unsubscribes.push(
      chain.onPending((bytes, origin) => {
        if (origin !== 'network') this.gossip.queueOperation(bytes);
      }),
      chain.onBlock((_info, origin, _operations, _optypes, bytes) => {
        if (origin === 'produced') void this.gossip.publishBlock(bytes);
        if (this.host !== undefined && !this.sync.syncing) this.snapshots.prepare();
      }),
    );
    // The operation count its hellos tell joining peers is counted in the background from now,
    // so that it is known by the time the first of them connects.
    chain.operationCount();
    this.loaded = true;
  }

  private async doStart(): Promise<void> {
    if (!this.loaded) await this.load();
    const host = await this.createHost();
    this.host = host;
    this.startedAt = Date.now();
    this.hello.helloSeen = false;
    this.sync.resume();
    this.history.resume();
    const listening = host
      .getMultiaddrs()
      .map(addressOfMultiaddr)
      .find((a) => a !== undefined);
    if (listening !== undefined) this.actualPort = listening.port;
    // Port 0 picks a free port once; a later nodeStart listens on the same one, so that peers that
    // know this node by its address find it again.
    if (this.opts.port === 0) this.opts.port = this.actualPort;
    this.timers.push(
      setInterval(() => this.connectionManager.dialKnownServers(), this.opts.dialIntervalMs),
      setInterval(() => this.connectionManager.refreshStatus(), this.opts.statusIntervalMs),
      setInterval(() => {
        if (this.discoveryOn) void this.requests.exchangePeers();
      }, this.opts.discoveryIntervalMs),
      setInterval(() => this.gossip.rebroadcastIfStuck(), this.opts.rebroadcastIntervalMs),
    );
    for (const timer of this.timers) timer.unref?.();
    this.ctx.log.info(
      { peerId: host.peerId.toString(), port: this.actualPort, known: this.ctx.book.list().length },
      'p2p networking started',
    );
    this.connectionManager.dialKnownServers();
    this.snapshots.start();
  }

  private async createHost(): Promise<Libp2p<Services>> {
    const host = this.opts.host;
    const family = host.includes(':') ? 'ip6' : 'ip4';
    const specific = host !== '0.0.0.0' && host !== '::';
    const connections = this.connectionManager;
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
        denyDialMultiaddr: (ma) => connections.isBlacklisted(addressOfMultiaddr(ma)?.ip),
        denyInboundConnection: (maConn) => connections.denyInbound(maConn),
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
      metrics: (components) => this.sockets.metricsWith(this.libp2pMetrics?.()(components)),
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
    await this.requests.register(libp2p);
    libp2p.addEventListener('connection:open', (event) =>
      connections.onConnectionOpen(event.detail),
    );
    libp2p.addEventListener('connection:close', (event) =>
      connections.onConnectionClose(event.detail),
    );
    try {
      await libp2p.start();
    } catch (error) {
      throw listenError(error, host, this.opts.port);
    }
    this.gossip.subscribe(libp2p);
    return libp2p;
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const host = this.host;
    if (host === undefined) return;
    this.host = undefined;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.gossip.stop();
    await this.sync.stop();
    await this.history.stop();
    this.connectionManager.stop();
    await host.stop();
    this.ctx.log.info({}, 'p2p networking stopped');
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.stop();
      await this.snapshots.close();
      for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
      await this.ctx.blacklist.flush();
      await this.ctx.book.flush();
    })();
    return this.closing;
  }

  // ---------------------------------------------------------------- RPC-facing

  addPeers(list: string): number {
    const addresses = parsePeerList(list, this.opts.defaultPeerPort);
    let accepted = 0;
    for (const address of addresses) {
      if (this.ctx.blacklist.has(address.ip)) continue;
      this.ctx.book.add(address);
      accepted++;
    }
    this.connectionManager.dialKnownServers();
    return accepted;
  }

  netStats(): NetStats {
    return netStats(this.ctx, this.sockets);
  }

  knownServers(): KnownServer[] {
    return this.ctx.book.list();
  }

  connections(): ConnectionInfo[] {
    return connectionInfos(this.ctx, this.sockets);
  }

  addBlacklist(ip: string, why?: string): BlacklistEntry {
    if (!isValidIp(ip)) throw badRequest('BAD_IP', `'${echoed(ip)}' is not an IP address`, 'ip');
    return this.discipline.ban(ip, 0, why !== undefined && why.length > 0 ? why : 'manual', true);
  }

  blacklist(): BlacklistEntry[] {
    return this.ctx.blacklist.list();
  }

  /** Clears the blacklist and dials the known servers it kept this node from, at once. */
  clearBlacklist(): number {
    const cleared = this.ctx.blacklist.clear();
    this.connectionManager.dialKnownServers();
    return cleared;
  }

  ipStats(ip?: string): IpTraffic[] {
    return ipStats(this.ctx, ip);
  }

  lastReorganization(): Reorganization | undefined {
    return this.lastReorg;
  }

  onReorganized(listener: (reorganization: Reorganization) => void): () => void {
    this.reorgListeners.add(listener);
    return () => this.reorgListeners.delete(listener);
  }

  private reorganized(reorganization: Reorganization): void {
    this.lastReorg = reorganization;
    for (const listener of this.reorgListeners) {
      try {
        listener(reorganization);
      } catch (error) {
        // A listener's failure is its own: sync goes on, and the others are told.
        this.ctx.log.warn({ err: String(error) }, 'a reorganisation listener failed');
      }
    }
  }

  syncProgress(): SyncProgress {
    return this.sync.progress();
  }

  isSynced(): boolean {
    if (this.host === undefined) return true;
    if (this.sync.syncing || this.sync.bestPeer() !== undefined) return false;
    const waiting =
      !this.hello.helloSeen &&
      this.ctx.book.list().length > 0 &&
      Date.now() - this.startedAt < this.opts.startupGraceMs;
    return !waiting;
  }

  enableDiscovery(): void {
    const wasOn = this.discoveryOn;
    this.discoveryOn = true;
    if (!wasOn) this.ctx.log.info({}, 'peer discovery on (peer exchange)');
    void this.requests.exchangePeers();
  }
}
