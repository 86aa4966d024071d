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
import type { Hello, HelloWork, TipInfo } from '../wire/messages';
import type { PeerAddress } from './address';
import type { PeerBook } from './peer-book';
import { type PeerConnections, RequestStreams } from './peer-connections';

export type Services = { identify: Identify; ping: Ping; pubsub: GossipSub };

/**
 * A connection and what its hello said: the one record of a peer, written only through its
 * methods (its hello accepted, its tip learnt, its sync postponed, its hello deadline, its
 * retirement as a duplicate), so that what changes a peer is found here.
 */
export class PeerState implements SyncPeer {
  readonly peerId: string;
  readonly ip: string;
  /** This node dialled it: the peer is a server, reachable at `address`. */
  readonly server: boolean;
  readonly openedAt = Date.now();
  /** Inbound streams of each request protocol open on this connection now. */
  readonly inboundStreams = new Map<RequestProtocol, number>();
  /** Request streams open on this connection now, both ways (a duplicate closes once none are). */
  readonly requests = new RequestStreams();
  private helloSaid: Hello | undefined;
  private tip: TipInfo | undefined;
  private workSaid: HelloWork | undefined;
  private clockDiff = 0;
  private retryAt = 0;
  private helloDeadline: ReturnType<typeof setTimeout> | undefined;
  /** A hello exchange this node started and that is not over. */
  private helloInFlight: Promise<void> | undefined;
  /** Called once the peer's hello is accepted (requests that came before it wait: waitForHello). */
  private readonly helloWaiters = new Set<() => void>();
  private retiringNow = false;

  constructor(
    readonly connection: Connection,
    readonly address: PeerAddress,
  ) {
    this.peerId = connection.remotePeer.toString();
    this.ip = address.ip;
    this.server = connection.direction === 'outbound';
  }

  get hello(): Hello | undefined {
    return this.helloSaid;
  }

  /** The peer's tip as it last said (hello, sync response, a block it gossiped). */
  get head(): TipInfo | undefined {
    return this.tip;
  }

  get work(): HelloWork | undefined {
    return this.workSaid;
  }

  /** Seconds the peer's clock is ahead of this node's, as its hello said. */
  get timediff(): number {
    return this.clockDiff;
  }

  get syncRetryAt(): number {
    return this.retryAt;
  }

  /** A duplicate this node dialled, to be closed once its requests are over. */
  get retiring(): boolean {
    return this.retiringNow;
  }

  openStream(protocol: string): Promise<Stream> {
    return this.requests.opened(() =>
      this.connection.newStream(protocol, { signal: AbortSignal.timeout(10_000) }),
    );
  }

  learnTip(tip: TipInfo): void {
    this.tip = tip;
  }

  postponeSync(until: number): void {
    this.retryAt = until;
  }

  /** Its hello passed the checks: its tip, work and clock are known, and waiting requests go on. */
  acceptHello(hello: Hello): void {
    this.helloSaid = hello;
    this.tip = hello.head;
    this.workSaid = hello.work;
    this.clockDiff = hello.timestamp - Math.floor(Date.now() / 1000);
    this.clearHelloDeadline();
    for (const waiter of this.helloWaiters) waiter();
  }

  /** `expired` runs after `ms` unless a hello was accepted by then. */
  armHelloDeadline(ms: number, expired: () => void): void {
    this.clearHelloDeadline();
    this.helloDeadline = setTimeout(() => {
      if (this.helloSaid === undefined) expired();
    }, ms);
    this.helloDeadline.unref?.();
  }

  clearHelloDeadline(): void {
    if (this.helloDeadline !== undefined) clearTimeout(this.helloDeadline);
    this.helloDeadline = undefined;
  }

  /** The hello exchange under way with this peer, or `round` started now. */
  helloRound(round: () => Promise<void>): Promise<void> {
    this.helloInFlight ??= round().finally(() => {
      this.helloInFlight = undefined;
    });
    return this.helloInFlight;
  }

  /** Marks it as a duplicate being closed; false when it is already. */
  retire(): boolean {
    if (this.retiringNow) return false;
    this.retiringNow = true;
    return true;
  }

  /** It stays (it became the kept connection before it closed). */
  unretire(): void {
    this.retiringNow = false;
  }

  /**
   * Resolves true once the peer's hello is accepted, false if `stream` ends or `timeoutMs` passes
   * first: a request stream opened alongside the hello (a node starting behind asks its first
   * blocks that way) is served after it instead of being refused.
   */
  waitForHello(stream: Stream, timeoutMs: number): Promise<boolean> {
    if (this.helloSaid !== undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (accepted: boolean) => {
        clearTimeout(timer);
        this.helloWaiters.delete(onHello);
        stream.removeEventListener('close', onClose);
        resolve(accepted);
      };
      const onHello = () => settle(true);
      const onClose = () => settle(false);
      const timer = setTimeout(() => settle(false), timeoutMs);
      this.helloWaiters.add(onHello);
      stream.addEventListener('close', onClose, { once: true });
    });
  }
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
