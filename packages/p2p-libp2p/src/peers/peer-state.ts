import type { Chain } from '@chain/ledger';
import type { GossipSub } from '@libp2p/gossipsub';
import type { Identify } from '@libp2p/identify';
import type { Connection, Libp2p, PeerId, Stream } from '@libp2p/interface';
import type { Ping } from '@libp2p/ping';
import type { Blacklist } from '../discipline/blacklist';
import type { P2PLogger, ResolvedP2POptions } from '../p2p-options';
import type { TrafficStats } from '../stats/traffic';
import type { SyncPeer } from '../sync/sync-types';
import type { RequestProtocol } from '../wire/message-table';
import type { Hello, TipInfo } from '../wire/messages';
import type { PeerAddress } from './address';
import type { PeerBook } from './peer-book';
import { type PeerConnections, RequestStreams } from './peer-connections';

export type Services = { identify: Identify; ping: Ping; pubsub: GossipSub };

/** A connection and what its hello said. */
export interface PeerState extends SyncPeer {
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
  /** Called once the peer's hello is accepted (requests that came before it wait: helloAccepted). */
  readonly helloWaiters: Set<() => void>;
  /** Inbound streams of each request protocol open on this connection now. */
  readonly inboundStreams: Map<RequestProtocol, number>;
  /** Request streams open on this connection now, both ways (a duplicate closes once none are). */
  readonly requests: RequestStreams;
  /** A duplicate this node dialled, to be closed once its requests are over. */
  retiring: boolean;
}

/** What the parts of a P2P node share: its chain, options, peers and records. */
export interface P2PContext {
  readonly chain: Chain;
  readonly opts: ResolvedP2POptions;
  readonly log: P2PLogger;
  readonly peers: PeerConnections<PeerState>;
  readonly traffic: TrafficStats;
  readonly book: PeerBook;
  readonly blacklist: Blacklist;
  /** The libp2p host while networking is on. */
  host(): Libp2p<Services> | undefined;
  /** The TCP port listened on. */
  listenPort(): number;
}

/** The state of a connection just opened (no hello yet). */
export function newPeerState(connection: Connection, address: PeerAddress): PeerState {
  const requests = new RequestStreams();
  return {
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
    helloWaiters: new Set(),
    inboundStreams: new Map(),
    requests,
    retiring: false,
    openStream: (protocol) =>
      requests.opened(() =>
        connection.newStream(protocol, { signal: AbortSignal.timeout(10_000) }),
      ),
  };
}

/**
 * Resolves true once `peer`'s hello is accepted, false if `stream` ends or `timeoutMs` passes
 * first: a request stream opened alongside the hello (a node starting behind asks its first blocks
 * that way) is served after it instead of being refused.
 */
export function helloAccepted(
  peer: PeerState,
  stream: Stream,
  timeoutMs: number,
): Promise<boolean> {
  if (peer.hello !== undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (accepted: boolean) => {
      clearTimeout(timer);
      peer.helloWaiters.delete(onHello);
      stream.removeEventListener('close', onClose);
      resolve(accepted);
    };
    const onHello = () => settle(true);
    const onClose = () => settle(false);
    const timer = setTimeout(() => settle(false), timeoutMs);
    peer.helloWaiters.add(onHello);
    stream.addEventListener('close', onClose, { once: true });
  });
}

/** Where a peer accepts connections: the dialled address, or its IP with its hello's port. */
export function listeningAddress(peer: PeerState): PeerAddress | undefined {
  if (peer.server) return peer.address;
  const port = peer.hello?.listenPort ?? 0;
  return port > 0 ? { ip: peer.ip, port } : undefined;
}

/** The kept connection of each peer, once its hello is done. */
export function readyPeers(ctx: P2PContext): PeerState[] {
  return ctx.peers.keptAll().filter((p) => p.hello !== undefined && p.connection.status === 'open');
}

/** A connected peer that completed its hello and is not blacklisted (its kept connection first). */
export function peerByPeerId(ctx: P2PContext, peerId: PeerId | string): PeerState | undefined {
  const id = peerId.toString();
  const kept = ctx.peers.kept(id);
  for (const peer of [kept, ...ctx.peers.of(id)]) {
    if (peer?.hello !== undefined && !ctx.blacklist.has(peer.ip)) return peer;
  }
  return undefined;
}

/** A network address of this node's own listener (so that it does not dial itself). */
export function isSelf(ctx: P2PContext, address: PeerAddress): boolean {
  if (address.port !== ctx.listenPort()) return false;
  const host = ctx.opts.host;
  return (
    address.ip === host || ((host === '0.0.0.0' || host === '::') && /^127\./.test(address.ip))
  );
}
