import { join } from 'node:path';
import { ErrorCode } from '@chain/ledger';
import { withDefaults } from '@chain/spec';
import { Blacklist } from '../discipline/blacklist';
import { PeerDiscipline } from '../discipline/peer-discipline';
import { Gossip } from '../gossip/gossip';
import {
  DEFAULT_P2P_OPTIONS,
  type P2PLogger,
  type P2PNodeOptions,
  type ResolvedP2POptions,
  resolveP2POptions,
} from '../p2p-options';
import { parsePeerList } from '../peers/address';
import { ConnectionManager } from '../peers/connection-manager';
import { Discovery } from '../peers/discovery';
import { HelloExchange } from '../peers/hello-exchange';
import { InboundConnections } from '../peers/inbound-connections';
import { PeerBook } from '../peers/peer-book';
import { PeerConnections } from '../peers/peer-connections';
import { type P2PContext, type PeerState, readyPeers } from '../peers/peer-state';
import { RequestServing } from '../serving/request-serving';
import { SnapshotServer } from '../serving/snapshot-serving';
import { SocketCounters, TrafficStats } from '../stats/traffic';
import { BlockSync } from '../sync/block-sync';
import { HistoryFetch } from '../sync/history-fetch';
import { SnapSync } from '../sync/snap-sync';
import type { Reorganization, SyncHooks } from '../sync/sync-types';
import type { RateLimits } from '../wire/message-table';
import { Libp2pHost } from './libp2p-host';
import { type Component, Lifecycle } from './lifecycle';

const noopLog: P2PLogger = { debug() {}, info() {}, warn() {} };

/** The parts of a P2P node, each built once per node. */
export interface P2PParts {
  readonly ctx: P2PContext;
  readonly opts: ResolvedP2POptions;
  readonly sockets: SocketCounters;
  readonly host: Libp2pHost;
  readonly inbound: InboundConnections;
  readonly discipline: PeerDiscipline;
  readonly snap: SnapSync;
  readonly snapshots: SnapshotServer;
  readonly sync: BlockSync;
  readonly history: HistoryFetch;
  readonly hello: HelloExchange;
  readonly gossip: Gossip;
  readonly connections: ConnectionManager;
  readonly requests: RequestServing;
  readonly discovery: Discovery;
  /** The node's parts in their start order. */
  readonly lifecycle: Lifecycle;
}

/**
 * Builds the parts of a P2P node, then wires them. Step one: each part is built from the options,
 * the shared records (`P2PContext`) and the parts built before it, in this order, so that a hook
 * refers only to a part that exists. Step two: the two hooks that point forward (a failed
 * handshake scored by the discipline; a greeted peer asked for its mempool by request serving)
 * are wired once every part exists. Then the start order: each component's `needs` come before it
 * (`Lifecycle` refuses the list otherwise).
 */
export function buildP2PComponents(
  options: P2PNodeOptions,
  reorganized: (reorganization: Reorganization) => void,
): P2PParts {
  const opts = resolveP2POptions(options);
  const sockets = new SocketCounters();
  const host = new Libp2pHost(opts, sockets, options.libp2pMetrics);
  const ctx: P2PContext = {
    chain: options.chain,
    opts,
    log: options.log ?? noopLog,
    peers: new PeerConnections<PeerState>(() => host.localPeerId),
    traffic: new TrafficStats(),
    book: new PeerBook(opts.dir),
    blacklist: new Blacklist({ dir: opts.dir }),
    host: () => host.current,
    listenPort: () => host.port,
  };
  const rateLimits: RateLimits = Object.freeze(
    withDefaults(DEFAULT_P2P_OPTIONS.rateLimits, options.rateLimits),
  );
  const inbound = new InboundConnections({ maxPerIp: opts.maxInboundPerIp });
  const discipline = new PeerDiscipline(ctx, rateLimits, inbound);
  const syncHooks: SyncHooks = {
    peers: () => readyPeers(ctx),
    misbehaved: (peer, offence, code, text) =>
      discipline.misbehaved(peer as PeerState, offence, code, text),
    traffic: (ip, kind, direction, bytes) => ctx.traffic.record(ip, kind, direction, bytes),
    log: (level, details, message) => ctx.log[level](details, message),
    reorganized,
  };
  const snap = new SnapSync({
    chain: ctx.chain,
    mode: opts.sync,
    distance: opts.snapDistance,
    operations: opts.snapOperations,
    gatherMs: opts.snapGatherMs,
    dir: join(opts.dir, 'snapshot-join'),
    hooks: {
      ...syncHooks,
      unconnectedServers: () => {
        const ready = new Set(readyPeers(ctx).map((p) => p.peerId));
        return ctx.book.list().filter((s) => !ready.has(s.peerId ?? '')).length;
      },
    },
  });
  const snapshots = new SnapshotServer(
    ctx.chain,
    join(opts.dir, 'served-snapshots'),
    opts.serveSnapshots ? opts.snapshotEvery : 0,
    (ip, kind, bytes) => ctx.traffic.record(ip, kind, 'Autosend', bytes),
    (details, message) => ctx.log.info(details, message),
  );
  const sync = new BlockSync({ chain: ctx.chain, settings: opts, snap, hooks: syncHooks });
  const history = new HistoryFetch({
    chain: ctx.chain,
    hooks: syncHooks,
    busy: () => sync.syncing || !opts.fetchHistory,
  });
  const hello = new HelloExchange(ctx, discipline);
  const gossip = new Gossip(ctx, discipline, {
    syncing: () => sync.syncing,
    askTip: (peer) => void hello.exchange(peer),
  });
  const connections = new ConnectionManager(ctx, inbound, {
    exchangeHello: (peer) => {
      // Until a first hello completes, this node may be behind: its first sync request saves
      // the stream's negotiation (a round trip) on a stream opened to the peer it dialled.
      if (!hello.helloSeen) sync.preopen(peer);
      void hello.exchange(peer);
    },
    greet: (peer) => hello.greet(peer),
    peersChanged: () => sync.trigger(),
  });
  const requests = new RequestServing(ctx, discipline, {
    serveHello: (stream, peer) => hello.serve(stream, peer),
    submitOperations: (peer, blob) => gossip.submitOperations(peer, blob),
    dialKnownServers: () => connections.dialKnownServers(),
    serveSnapshot: (stream, peer) => snapshots.serve(stream, peer.ip),
  });
  const discovery = new Discovery(ctx, connections, (peers) => requests.exchangePeers(peers));

  // Step two: the hooks that point to parts built later.
  inbound.wire((ip, port) => {
    if (ctx.host() === undefined || ctx.blacklist.has(ip)) return;
    discipline.misbehavedIp(
      ip,
      port,
      'failedHandshake',
      ErrorCode.INVALID_DATA,
      'connection closed before its handshake completed',
    );
  });
  hello.wire({
    snapshotRecords: () => snapshots.servedRecords(),
    greeted: (peer) => {
      void requests.fetchMempool(peer);
      discovery.greeted(peer);
    },
    tipLearnt: () => {
      sync.trigger();
      history.trigger();
    },
  });
  host.wire({
    register: (libp2p) => requests.register(libp2p),
    isBlacklisted: (ip) => connections.isBlacklisted(ip),
    denyInbound: (maConn) => connections.denyInbound(maConn),
    upgraded: (maConn) => inbound.upgraded(maConn),
    connectionOpen: (connection) => connections.onConnectionOpen(connection),
    connectionClose: (connection) => connections.onConnectionClose(connection),
  });

  const lifecycle = new Lifecycle([
    storesComponent(ctx, options.peers ?? []),
    host,
    hello,
    gossip,
    { name: 'sync', needs: ['host'], start: () => sync.resume(), stop: () => sync.stop() },
    {
      name: 'history',
      needs: ['sync'],
      start: () => history.resume(),
      stop: () => history.stop(),
    },
    {
      name: 'snapshots',
      needs: ['stores'],
      start: () => snapshots.start(),
      close: () => snapshots.close(),
    },
    chainEventsComponent(ctx, gossip, sync, snapshots),
    connections,
    discovery,
  ]);
  return {
    ctx,
    opts,
    sockets,
    host,
    inbound,
    discipline,
    snap,
    snapshots,
    sync,
    history,
    hello,
    gossip,
    connections,
    requests,
    discovery,
    lifecycle,
  };
}

/** The blacklist and the peer book: read once (with the peers given at start-up), saved at close. */
function storesComponent(ctx: P2PContext, initialPeers: readonly string[]): Component {
  return {
    name: 'stores',
    needs: [],
    async load() {
      await ctx.blacklist.load();
      await ctx.book.load();
      for (const address of parsePeerList(initialPeers.join(';'), ctx.opts.defaultPeerPort)) {
        ctx.book.addPinned(address);
      }
    },
    async close() {
      await ctx.blacklist.flush();
      await ctx.book.flush();
    },
  };
}

/** The chain's events that gossip: set once per node, removed at close. */
function chainEventsComponent(
  ctx: P2PContext,
  gossip: Gossip,
  sync: BlockSync,
  snapshots: SnapshotServer,
): Component {
  const unsubscribes: Array<() => void> = [];
  return {
    name: 'chain-events',
    needs: ['gossip', 'sync', 'snapshots'],
    load() {
      const { chain } = ctx;
      unsubscribes.push(
        chain.onPending((bytes, origin) => {
          if (origin !== 'network') gossip.queueOperation(bytes);
        }),
        chain.onBlock((_info, origin, _operations, _optypes, bytes) => {
          if (origin === 'produced') void gossip.publishBlock(bytes);
          if (ctx.host() !== undefined && !sync.syncing) snapshots.prepare();
        }),
      );
      // The operation count its hellos tell joining peers is counted in the background from
      // now, so that it is known by the time the first of them connects.
      chain.operationCount();
    },
    close() {
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
    },
  };
}
